#!/usr/bin/env bash
# Call IO (as IN, up to 400 cases a tool): flashattn-fuzz of 1ae1b4c (--small --walks: the walk preset at Sq, Sk <= 300 with up
# to 256 heads; dist/fuzz-new.xz over call IH's pack) under compute-sanitizer memcheck, racecheck
# and synccheck through scripts/gpu-run.sh's fuzz-sanitizer step, each tool at most 90 s of cases
# (the fuzzer's --seconds) and 150 s in all; the summaries by schedule say how many walked.
# From the checkout root on the GPU host; results in $OUT/call-io/.
set -uo pipefail
o=${OUT:-gpu-out}/call-io
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
xz -dc dist/fuzz-new.xz > dist/gpu/bin/flashattn-fuzz && chmod +x dist/gpu/bin/flashattn-fuzz
FUZZ_SANITIZER_ARGS="--small --walks --seconds 90" FUZZ_SANITIZER_CASES="400 400 400" SANITIZER_LIMIT=150 \
  OUT=$o/san scripts/gpu-run.sh fuzz-sanitizer > "$o/san-run.log" 2>&1
cp "$o/san/summary.txt" "$o/summary.txt" 2>/dev/null
mkdir -p "$o/x" && tar -xzf "$o/san/logs.tar.gz" -C "$o/x" 2>/dev/null
for t in memcheck racecheck synccheck; do
  f=$(find "$o/x" "$o/san" -name "fuzz-sanitizer-$t.log" | head -1)
  [ -n "$f" ] || continue
  echo "== $t" >> "$o/summary.txt"
  sed -n '/by schedule/,/^[a-z]/p' "$f" | head -6 >> "$o/summary.txt"
  cp "$f" "$o/"
done
rm -rf "$o/x" "$o/san"
cat "$o/summary.txt"
