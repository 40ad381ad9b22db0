#!/usr/bin/env bash
# Call IU: the head-dim-128 walks take their next tile (wait for its announcement, read the
# slot, work out its WsTile) while the tile's last P.V runs, before the epilogue, instead of
# after it (variant pretake, pretake.patch), against main (0ef31fe): variant probe, 15 rounds,
# and the timeline probe of pretake at bf16 B8 H16 S2048.
# Here: scripts/variant-ab.sh build main=0ef31fe pretake=0ef31fe+pretake.patch; the timeline
# probe built from pretake's tree; both carried in dist/iu.txz.
set -uo pipefail
o=${OUT:-gpu-out}/call-iu
mkdir -p "$o"
mkdir -p dist/iu && tar -xJf dist/iu.txz -C dist/iu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
start=$SECONDS
timeout 400 dist/iu/variant-ab 15 \
  "m192n80w16s4ws bf16 8 16 2048 128" "m192n80w16s4ws f16 8 16 2048 128" \
  "m192n80w16s4ws bf16 16 16 1024 128" "m192n80w16s4ws bf16 4 16 4096 128" \
  "m192n80w16s4ws bf16 16 16 1024 128 causal" "m192n80w16s4ws bf16 32 16 512 128" \
  "m128n176w12s2ws bf16 8 16 2048 128" "m128n128w12s3ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 2 16 8192 128" "m192n128w16s4ws f16 8 16 512 64" > "$o/variant-ab.log" 2>&1
echo "variant-ab rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
name="pretake-m192n80w16s4ws-bf16-8-16-2048-128"
timeout 60 dist/iu/timeline "$o/$name.bin" m192n80w16s4ws bf16 8 16 2048 128 > "$o/$name.txt" 2>&1
python3 scripts/timeline-report.py "$o/$name.bin" >> "$o/$name.txt" 2>&1
rm -f "$o/$name.bin"
cat "$o/checks.txt"
grep -E "p50" "$o/variant-ab.log" | sed 's/  */ /g' | cut -c1-150
for f in "$o"/*.txt; do echo "== $f"; grep -E "steady|beyond|last turn ->|O staged|last P.V" "$f" | head -12; done
