#!/usr/bin/env bash
# Call JG: abda236's pack, the varlen grid and fuzzer on short sequences under racecheck alone
# (call JF's racecheck run of it reached its 80 s bound), bounded to 330 s.
set -uo pipefail
o=${OUT:-gpu-out}/call-jg
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
OUT=$o/san SANITIZER_TOOLS=racecheck VARLEN_SANITIZER_CASES=20 SANITIZER_LIMIT=330 \
  scripts/gpu-run.sh varlen-sanitizer > "$o/san-run.log" 2>&1
grep -E "^varlen" "$o/san/summary.txt" >> "$o/checks.txt"
cat "$o/checks.txt"
