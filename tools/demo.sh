#!/usr/bin/env bash
# The whole story on a fresh machine: install what is needed, build viewlog, make a store from the example
# schema, append, query, diff, replay, export and import; then a view over a relationship that another process
# changes one hop away (schema/company.json); then the store served over HTTP (viewlog serve), ending with the
# inspector's URL. Run from anywhere: tools/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
tools/install-deps
# A failed build stops the demo with the compiler's output. The static link prints the toolchain's own
# libFoundationEssentials.a warning about `mktemp` (not this code's): not shown.
build_log=$(mktemp)
if ! swift build -c release --static-swift-stdlib -Xlinker -no-pie --product viewlog > "$build_log" 2>&1; then
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

# One hop away (DESIGN §10): employees sectioned by their department's name. Another process renames a department;
# the watching view moves exactly that department's employees, with the key path in `changed`.
company="$work/company"
printf '\n\033[1m%s\033[0m\n' "One hop away: a view over a relationship (schema/company.json)"
step viewlog init "$company" --schema schema/company.json
viewlog init "$company" --schema schema/company.json

step viewlog append "$company" '<<' two departments, three employees, a project
viewlog append "$company" <<'JSON'
{"author": "hr", "changes": [{"insert": "Department", "id": 1, "values": {"name": "Sales", "floor": 2}}, {"insert": "Department", "id": 2, "values": {"name": "Ops", "floor": 1}}]}
{"author": "hr", "changes": [{"insert": "Employee", "id": "ann", "values": {"name": "Ann", "department": 1}}, {"insert": "Employee", "id": "bob", "values": {"name": "Bob", "department": 2, "manager": "ann"}}, {"insert": "Employee", "id": "cy", "values": {"name": "Cy", "department": 1, "manager": "ann"}}]}
{"insert": "Project", "id": 7, "values": {"title": "Comet", "owner": 1, "reviewer": "cy"}}
JSON

step viewlog query "$company" byDepartment '   # sort "department.name, name", section "department.name"'
viewlog query "$company" byDepartment

step viewlog watch "$company" byDepartment --json --count 1 '&' ' # then another process renames Sales'
viewlog watch "$company" byDepartment --json --count 1 > "$work/company-watch.out" &
watcher=$!
for _ in $(seq 100); do [ -s "$work/company-watch.out" ] && break; sleep 0.05; done
viewlog append "$company" update Department 1 name=Alpha >/dev/null
wait "$watcher"
echo "(the other process ran: viewlog append $company update Department 1 name=Alpha)"
tail -n 1 "$work/company-watch.out"

step viewlog diff "$company" byDepartment --from 3 --to 4 --json '   # the same batch, from the log'
viewlog diff "$company" byDepartment --from 3 --to 4 --json | tee "$work/company-diff.out"
# Exactly Ann and Cy moved, each because of department.name; Bob (Ops) is not reported.
moved=$(grep -o '"id": "[a-z]*"' "$work/company-diff.out" | tr '\n' ' ')
[ "$moved" = '"id": "ann" "id": "cy" ' ] && [ "$(grep -o '"changed": \["department.name"\]' "$work/company-diff.out" | wc -l)" -eq 2 ] \
  && echo "exactly the two employees of the renamed department moved, with department.name in changed"

step viewlog diff "$company" byDepartment --from 4 --to 3 --json '   # backwards'
viewlog diff "$company" byDepartment --from 4 --to 3 --json

step viewlog query "$company" upstairs --include department.name --json '   # rows carry their path values'
viewlog query "$company" upstairs --include department.name --json

step viewlog append "$company" delete Employee cy '   # refused: Project 7 names Cy as reviewer (onDelete: deny)'
viewlog append "$company" delete Employee cy || echo "(exit status $?)"

step viewlog append "$company" delete Department 1 '&&' viewlog log "$company" --from 4 '   # nullify and cascade, logged'
viewlog append "$company" delete Department 1 >/dev/null
viewlog log "$company" --from 4

step viewlog verify "$company"
viewlog verify "$company"

step viewlog serve "$store" '&' '  # the same documents over HTTP, and the inspector page'
# The binary itself in the background (not the `viewlog` function: `$!` would be the subshell running it, and
# killing that left the server running after the demo).
.build/release/viewlog serve "$store" > "$work/serve.out" 2>&1 &
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
