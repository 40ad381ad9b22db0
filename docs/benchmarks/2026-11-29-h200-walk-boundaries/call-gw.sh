#!/usr/bin/env bash
# Call GW: Q in one part per consumer (variant pcq: each part with its own pair of barriers, a
# 64-row box per consumer; a walk refills a consumer's part once that consumer's last Q.K^T has
# read it), on top of the head-dim-128 announcements, against main (fffe18d), the announcements
# alone (d128a) and a second Q buffer for the three-consumer head-dim-64 walk on the
# announcements (q2s: hq2.patch of the last page + d128-announced.patch). d128a's head-dim-64
# kernels are main's: those rows are the run's noise.
# 1. the variant probe, 11 rounds, O bit for bit, walks and one-tile-per-CTA kernels (S8192,
# causal); 2. the timeline probe of main and pcq on two shapes.
# Here: scripts/variant-ab.sh build main=HEAD d128a=/tmp/var/d128a pcq=. q2s=/tmp/var/q2s,
# dist/timeline-main, dist/timeline-pcq.
set -uo pipefail
o=${OUT:-gpu-out}/call-gw
mkdir -p "$o"
start=$SECONDS
timeout 300 scripts/variant-ab.sh run 11 \
  "m192n80w16s4ws bf16 8 16 2048 128" "m192n80w16s4ws f16 8 16 2048 128" \
  "m192n80w16s4ws bf16 16 16 1024 128" "m192n80w16s4ws bf16 4 16 4096 128" \
  "m128n176w12s2ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 2 16 8192 128" "m192n80w16s4ws bf16 2 16 8192 128 causal" \
  "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws f16 4 16 512 64" \
  "m192n128w16s4ws bf16 16 32 1024 64" "m192n128w16s4ws bf16 4 32 4096 64" \
  "m128n128w12s4ws f16 8 16 512 64" "m128n128w12s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws f16 8 16 512 64 causal" > "$o/variant-ab.log" 2>&1
echo "variant-ab rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.log"
for v in main pcq; do
  for shape in "m192n128w16s4ws f16 8 16 512 64" "m192n80w16s4ws bf16 8 16 2048 128"; do
    name="$v-$(echo $shape | tr ' ' '-')"
    timeout 60 dist/timeline-$v "$o/$name.bin" $shape > "$o/$name.txt" 2>&1
    python3 scripts/timeline-report.py "$o/$name.bin" >> "$o/$name.txt" 2>&1
    rm -f "$o/$name.bin"
  done
done
grep -E "ratio|rc=" "$o/variant-ab.log" | cut -c1-150
for f in "$o"/*.txt; do echo "== $f"; grep -E "steady|beyond|last turn ->|O staged|last P.V" "$f" | head -12; done
