#!/usr/bin/env bash
# Call IK: flashattn-fuzz of a726f45 (its --walks preset at head dims 64 and 128, warp-specialized;
# dist/fuzz-new.xz, over call IH's pack) on the lent H200: --walks for 150 s,
# with their summaries by schedule.
# From the checkout root on the GPU host; results in $OUT/call-ik/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ik
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
xz -dc dist/fuzz-new.xz > dist/gpu/bin/flashattn-fuzz && chmod +x dist/gpu/bin/flashattn-fuzz
bin=dist/gpu/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
fuzz() {  # NAME SECONDS ARGS...
  local name=$1 secs=$2; shift 2; local s=$SECONDS
  timeout $((secs + 60)) "$bin/flashattn-fuzz" --seconds "$secs" --json "$o/fuzz-$name.json" "$@" > "$o/fuzz-$name.log" 2>&1
  echo "fuzz $name: rc=$? in $((SECONDS - s)) s; $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$name.log" | tail -1)" >> "$o/checks.txt"
  sed -n '/by schedule/,/^[a-z]/p' "$o/fuzz-$name.log" | head -8 >> "$o/checks.txt"
}
fuzz walks 150 --walks --seed 4307
rm -f "$o"/*.json
cat "$o/checks.txt"
