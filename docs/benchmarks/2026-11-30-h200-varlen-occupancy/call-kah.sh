#!/usr/bin/env bash
# Call KAH: compute-sanitizer on call KAG's pack (dist/gpu.txz, 13ae530): the packed varlen grid
# (every configuration, short sequences) under memcheck, racecheck and synccheck, then the
# fuzzer's small space under each.
# Everything lands in $OUT/call-kah.tgz, the summaries in $OUT/call-kah-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kah; mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
OUT=$base/varlen SANITIZER_LIMIT=200 scripts/gpu-run.sh varlen-sanitizer > /dev/null
OUT=$base/fuzz FUZZ_SANITIZER_ARGS='--small' FUZZ_SANITIZER_CASES='150 60 100' SANITIZER_LIMIT=100 \
  scripts/gpu-run.sh fuzz-sanitizer > /dev/null
for s in varlen fuzz; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kah-summary.txt"
tar -czf "$root/call-kah.tgz" -C "$root" call-kah && rm -rf "$base"
cat "$root/call-kah-summary.txt" | cut -c1-200 | tail -40
