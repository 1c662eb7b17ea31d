#!/usr/bin/env bash
# Builds the libFuzzer targets (with AddressSanitizer) and runs each for SECONDS (default 30), one after the
# other. Usage: tools/fuzz/run.sh [SECONDS] [TARGET ...]   TARGET: decode, predicate, append-line (default: all).
#
# Inputs: the seed corpus tools/fuzz/corpus/<target>/ (committed, read-only here) plus a work corpus in
# tools/fuzz/.build/corpus/<target>/ that keeps what the fuzzer found, so later runs start from it.
# A crash, a failed precondition or an input slower than 10 s stops the run and leaves the input in
# tools/fuzz/.build/artifacts/; the script then exits non-zero. Reproduce with:
#   tools/fuzz/.build/release/FuzzDecode tools/fuzz/.build/artifacts/decode-crash-…
# and turn the input into a regression test in Tests/ViewLogTests/FuzzRegressionTests.swift.
#
# CI: tools/fuzz/run.sh 30 (about 4 minutes of building the first time, then 30 s per target).
# Longer run (documented in tools/RELIABILITY.md): tools/fuzz/run.sh 600, or in parallel on more cores:
#   FUZZ_JOBS=4 tools/fuzz/run.sh 3600 predicate
# To fold the work corpus back into the seeds, minimized:
#   tools/fuzz/.build/release/FuzzDecode -merge=1 tools/fuzz/corpus/decode tools/fuzz/.build/corpus/decode
set -euo pipefail
cd "$(dirname "$0")"
export PATH="/opt/swift/usr/bin:$PATH"
seconds="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(decode predicate append-line)
jobs="${FUZZ_JOBS:-1}"
parallel=()
[ "$jobs" -le 1 ] || parallel=(-jobs="$jobs" -workers="$jobs")

# Gold (the default linker) fails on these links ("internal error in format_file_lineno"): use the
# toolchain's lld through a toolset file.
mkdir -p .build
lld="$(dirname "$(command -v swift)")/ld.lld"
[ -x "$lld" ] || { echo "error: no ld.lld next to swift ($lld)" >&2; exit 1; }
printf '{"schemaVersion": "1.0", "linker": {"path": "%s"}}\n' "$lld" > .build/lld-toolset.json
swift build -c release --scratch-path .build --toolset .build/lld-toolset.json \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library 2>&1 | grep -E "error|warning: .*Fuzz|Compiling Fuzz|Build complete" || true
bin=.build/release

executable() {
  case "$1" in
    decode) echo FuzzDecode ;;
    predicate) echo FuzzPredicate ;;
    append-line) echo FuzzAppendLine ;;
    *) echo "error: unknown fuzz target '$1' (decode, predicate, append-line)" >&2; exit 2 ;;
  esac
}

export SWIFT_BACKTRACE=enable=no  # libFuzzer and ASan print the stack; the Swift backtracer upsets ASan
status=0
for target in "${targets[@]}"; do
  exe="$bin/$(executable "$target")"
  [ -x "$exe" ] || { echo "error: $exe was not built" >&2; exit 1; }
  mkdir -p ".build/corpus/$target" .build/artifacts
  echo "== $target: $seconds s (jobs: $jobs)"
  log=".build/fuzz-$target.log"
  if "$exe" ".build/corpus/$target" "corpus/$target" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
      "${parallel[@]}" -print_final_stats=1 \
      -artifact_prefix=".build/artifacts/$target-" >"$log" 2>&1; then
    runs=$({ grep -ho "stat::number_of_executed_units: *[0-9]*" "$log" fuzz-[0-9]*.log 2>/dev/null || true; } | awk '{s+=$2} END {print s+0}')
    echo "   ok: $runs inputs run, work corpus $(ls ".build/corpus/$target" | wc -l) files, seeds $(ls "corpus/$target" | wc -l)"
  else
    status=1
    echo "   FAILED: see tools/fuzz/$log and tools/fuzz/.build/artifacts/"
    grep -E "ERROR|Fatal error|Precondition|SUMMARY|Test unit written" "$log" | head -10 || true
  fi
done
exit $status
