#!/usr/bin/env bash
# Call GX: per-consumer Q parts with the head-dim-128 walks releasing their part inside the key
# loop, at the last Q.K^T (variant pcqr: pcq.patch with kReleaseQAfterLoop = false, so consumer
# 0's next Q is copied a turn earlier), against main (fffe18d) and the announcements alone (d128a).
# 1. the variant probe, 11 rounds; 2. the timeline probe of pcqr on the 80-key tile at S2048.
# Here: scripts/variant-ab.sh build main=HEAD d128a=/tmp/var/d128a pcqr=/tmp/var/pcqr,
# dist/timeline-pcqr.
set -uo pipefail
o=${OUT:-gpu-out}/call-gx
mkdir -p "$o"
start=$SECONDS
timeout 300 scripts/variant-ab.sh run 11 \
  "m192n80w16s4ws bf16 8 16 2048 128" "m192n80w16s4ws f16 8 16 2048 128" \
  "m192n80w16s4ws bf16 16 16 1024 128" "m192n80w16s4ws bf16 4 16 4096 128" \
  "m128n176w12s2ws bf16 8 16 2048 128" "m128n128w12s3ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 2 16 8192 128" \
  "m192n128w16s4ws f16 8 16 512 64" "m128n128w12s4ws f16 8 16 512 64" > "$o/variant-ab.log" 2>&1
echo "variant-ab rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.log"
for shape in "m192n80w16s4ws bf16 8 16 2048 128"; do
  name="pcqr-$(echo $shape | tr ' ' '-')"
  timeout 60 dist/timeline-pcqr "$o/$name.bin" $shape > "$o/$name.txt" 2>&1
  python3 scripts/timeline-report.py "$o/$name.bin" >> "$o/$name.txt" 2>&1
  rm -f "$o/$name.bin"
done
grep -E "ratio|rc=" "$o/variant-ab.log" | cut -c1-150
for f in "$o"/*.txt; do echo "== $f"; grep -E "steady|beyond|last turn ->|O staged|last P.V" "$f" | head -12; done
