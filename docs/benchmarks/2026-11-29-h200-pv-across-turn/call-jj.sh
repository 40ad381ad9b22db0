#!/usr/bin/env bash
# Call JJ: the variant A/B probe, every variant (PROBE_EVERY_VARIANT=1 scripts/variant-ab.sh
# build main=HEAD work=.): `work` issues the warp-specialized producer's K and V copies through
# one helper (a ring buffer's release wait, its expected bytes, its atoms' TMA loads), 66 of 72
# ws functions compiled differently. 30 rounds over call JD's 14 shapes (every schedule),
# O compared bit for bit. Here: the probe packed as dist/jj.txz. From the checkout root on the
# GPU host; results in $OUT/call-jj/.
set -uo pipefail
o=${OUT:-gpu-out}/call-jj
mkdir -p "$o"
mkdir -p dist/jj && tar -xJf dist/jj.txz -C dist/jj
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/device.txt"
start=$SECONDS
timeout 300 dist/jj/variant-ab 30 \
  "m192n128w16s4ws f16 8 16 512 64" "m128n128w12s4ws f16 4 8 512 64" "m128n128w12s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 16 32 1024 64" "m192n128w16s4ws bf16 4 32 4096 64" \
  "m192n80w16s4ws bf16 8 16 2048 128" "m128n176w12s2ws bf16 8 16 2048 128" "m128n128w12s3ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 2 16 8192 128 split" "m192n128w16s4ws bf16 4 16 2048 64 causal" \
  "m192n80w16s4ws bf16 4 16 2048 128 window=256,0" "m192n128w16s4ws bf16 8 16 1024 64 softcap=30" \
  "m192n80w16s4ws bf16 8 16 2048 128 alibi" "m192n128w16s4ws f16 8 16 512 64 causal" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
grep -E "^(main|work) " "$o/variant-ab.txt" | sed -E 's/ +TFLOP\/s.*ratio/ ratio/' | cut -c1-140
tail -1 "$o/variant-ab.txt"
