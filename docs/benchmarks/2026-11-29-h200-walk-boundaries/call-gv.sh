#!/usr/bin/env bash
# Call GV: variant "new" = the three-consumer look-ahead (a3.patch: every head-dim-64 walk takes
# its next tile's first Q.K^T in the previous tile's last turn, with two Q buffers; short tiles
# not split) on top of the announcements, plus the head-dim-128 walks announced
# (d128-announced.patch), against main (fffe18d). The two patches touch disjoint kernels: the
# head-dim-64 shapes see only the first, the head-dim-128 ones only the second.
# 1. the variant probe, 11 rounds, O bit for bit; 2. the timeline probe of both on two shapes.
# Here: scripts/variant-ab.sh build main=HEAD new=/tmp/var/both (a3 + d128a applied to a copy),
# dist/timeline-main, dist/timeline-both.
set -uo pipefail
o=${OUT:-gpu-out}/call-gv
mkdir -p "$o"
start=$SECONDS
timeout 300 scripts/variant-ab.sh run 11 \
  "m192n80w16s4ws bf16 8 16 2048 128" "m192n80w16s4ws f16 8 16 2048 128" \
  "m192n80w16s4ws bf16 16 16 1024 128" "m192n80w16s4ws bf16 4 16 4096 128" \
  "m128n176w12s2ws bf16 8 16 2048 128" \
  "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws f16 4 16 512 64" \
  "m192n128w16s4ws bf16 16 32 1024 64" "m192n128w16s4ws bf16 4 32 4096 64" \
  "m128n128w12s4ws f16 8 16 512 64" > "$o/variant-ab.log" 2>&1
echo "variant-ab rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.log"
for v in main both; do
  for shape in "m192n128w16s4ws f16 8 16 512 64" "m192n80w16s4ws bf16 8 16 2048 128"; do
    name="$v-$(echo $shape | tr ' ' '-')"
    timeout 60 dist/timeline-$v "$o/$name.bin" $shape > "$o/$name.txt" 2>&1
    python3 scripts/timeline-report.py "$o/$name.bin" >> "$o/$name.txt" 2>&1
    rm -f "$o/$name.bin"
  done
done
grep -E "ratio|rc=" "$o/variant-ab.log" | cut -c1-150
for f in "$o"/*.txt; do echo "== $f"; grep -E "steady|beyond|last turn ->|O staged|last P.V" "$f" | head -12; done
