#!/usr/bin/env bash
# The whole story on a fresh machine: install what is needed, build viewlog, make a store from the example
# schema, append, query, diff, replay, export and import. Run from anywhere: tools/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
tools/install-deps
# A failed build stops the demo with the compiler's output. The static link prints the toolchain's own
# libFoundationEssentials.a warning about `mktemp` (not this code's): not shown.
build_log=$(mktemp)
if ! swift build -c release --static-swift-stdlib --product viewlog > "$build_log" 2>&1; then
  cat "$build_log" >&2
  rm -f "$build_log"
  exit 1
fi
grep -vE "^\[|^Building|^Compiling|^Write|the use of .mktemp. is dangerous" "$build_log" || true
rm -f "$build_log"
viewlog() { .build/release/viewlog "$@"; }
work=$(mktemp -d)
server=""
trap '[ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
store="$work/shop"
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

step viewlog init "$store" --schema schema/employees.json
viewlog init "$store" --schema schema/employees.json

step viewlog append "$store" '<<' four JSON lines
viewlog append "$store" <<'JSON'
{"insert": "Employee", "id": "e1", "values": {"name": "Ann", "height": 180, "sectionName": "A"}}
{"insert": "Employee", "id": "e2", "values": {"name": "Bob", "height": 165, "sectionName": "B"}}
{"author": "sync", "changes": [{"insert": "Employee", "id": "e3", "values": {"name": "Cy", "height": 190, "sectionName": "B"}}, {"insert": "Employee", "id": "e4", "values": {"name": "Di", "height": 172, "sectionName": "C", "salary": 5200.5}}]}
{"update": "Employee", "id": "e2", "values": {"height": 181}}
JSON

step viewlog append "$store" update Employee e4 sectionName=A
viewlog append "$store" update Employee e4 sectionName=A

step viewlog log "$store" --from 3
viewlog log "$store" --from 3

step viewlog query "$store" tall
viewlog query "$store" tall

step viewlog query "$store" tall --at 2 --json
viewlog query "$store" tall --at 2 --json

step viewlog diff "$store" tall --from 2 --to 5
viewlog diff "$store" tall --from 2 --to 5

step viewlog diff "$store" tall --from 2 --to 5 --json
viewlog diff "$store" tall --from 2 --to 5 --json

step viewlog get "$store" Employee e2 --at 3
viewlog get "$store" Employee e2 --at 3

step viewlog append "$store" update Employee nobody height=1 '   # refused: nothing appended'
viewlog append "$store" update Employee nobody height=1 || echo "(exit status $?)"

step viewlog watch "$store" tall --count 1 '&' ' # then another process appends'
viewlog watch "$store" tall --count 1 > "$work/watch.out" &
watcher=$!
for _ in $(seq 100); do [ -s "$work/watch.out" ] && break; sleep 0.05; done
viewlog append "$store" insert Employee e9 name=Eve height=199 sectionName=A >/dev/null
wait "$watcher"
cat "$work/watch.out"

step viewlog verify "$store"
viewlog verify "$store"

step viewlog replay "$store" --into "$work/at3" --to 3 '&&' viewlog query "$work/at3" tall
viewlog replay "$store" --into "$work/at3" --to 3
viewlog query "$work/at3" tall

step viewlog export "$store" '>' "$work/log.jsonl" '&&' viewlog import '<new store>' "$work/log.jsonl"
viewlog export "$store" > "$work/log.jsonl"
viewlog init "$work/copy" --schema schema/employees.json >/dev/null
viewlog import "$work/copy" "$work/log.jsonl"
diff <(viewlog query "$store" tall --json) <(viewlog query "$work/copy" tall --json) && echo "the imported store shows the same view"

step viewlog stats "$store"
viewlog stats "$store"

step viewlog serve "$store" '&' '  # the same documents over HTTP, and the inspector page'
viewlog serve "$store" > "$work/serve.out" 2>&1 &
server=$!
for _ in $(seq 200); do grep -q '^listening on ' "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
url=$(sed -n 's/^listening on //p' "$work/serve.out" | head -1)
[ -n "$url" ] || { cat "$work/serve.out" >&2; exit 1; }
head -1 "$work/serve.out"
step curl -s "'$url/v1/diff?view=tall&from=2&to=5'"
curl -s "$url/v1/diff?view=tall&from=2&to=5"
echo
# An interactive run keeps the server (and the demo's store) until Enter; any other run ends here.
interactive=false
[ -t 0 ] && [ -t 1 ] && interactive=true
if $interactive; then
  echo "demo done. The inspector: $url/  (open it in a browser; Enter stops the server)"
  read -r _
fi
kill "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
server=""
if ! $interactive; then
  echo "demo done. The inspector was at $url/ while the demo ran (viewlog serve STORE serves your own store)"
fi
