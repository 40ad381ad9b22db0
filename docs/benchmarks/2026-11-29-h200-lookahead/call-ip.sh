#!/usr/bin/env bash
# Call IP: the head-dim-128 walks' next tile's first Q.K^T issued before the tile's epilogue
# (look-ahead), three variants against main (0ef31fe), in the variant probe (15 rounds, O bit
# for bit) and the timeline probe (the 192-row 80-key walk at bf16 B8 H16 S2048).
#   ahead: kAhead for the O-from-registers walks (one Q buffer): the next Q.K^T in the last turn,
#          the Q awaited inside that turn (ahead.patch)
#   v2b:   the same, the next Q awaited before the last turn
#   v1:    the next Q.K^T in a turn of its own once the last P.V is done, the epilogue under it
# Here: scripts/variant-ab.sh build main=0ef31fe ahead=. v1=/tmp/var/v1 v2b=/tmp/var/v2b, the
# timeline probe built from each tree as dist/timeline-NAME; both carried as dist/ip.txz.
set -uo pipefail
o=${OUT:-gpu-out}/call-ip
mkdir -p "$o"
mkdir -p dist/ip && tar -xJf dist/ip.txz -C dist/ip
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
start=$SECONDS
timeout 400 dist/ip/variant-ab 15 \
  "m192n80w16s4ws bf16 8 16 2048 128" "m192n80w16s4ws f16 8 16 2048 128" \
  "m192n80w16s4ws bf16 16 16 1024 128" "m192n80w16s4ws bf16 4 16 4096 128" \
  "m192n80w16s4ws bf16 16 16 1024 128 causal" \
  "m128n176w12s2ws bf16 8 16 2048 128" "m128n128w12s3ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 2 16 8192 128" "m192n128w16s4ws f16 8 16 512 64" > "$o/variant-ab.log" 2>&1
echo "variant-ab rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
for n in main ahead v2b v1; do
  shape="m192n80w16s4ws bf16 8 16 2048 128"
  name="$n-$(echo $shape | tr ' ' '-')"
  timeout 60 dist/ip/timeline-$n "$o/$name.bin" $shape > "$o/$name.txt" 2>&1
  python3 scripts/timeline-report.py "$o/$name.bin" >> "$o/$name.txt" 2>&1
  rm -f "$o/$name.bin"
done
cat "$o/checks.txt"
grep -E "ratio" "$o/variant-ab.log" | sed 's/  */ /g' | cut -c1-140
for f in "$o"/*.txt; do echo "== $f"; grep -E "steady|beyond|last turn ->|O staged|last P.V" "$f" | head -12; done
