#!/usr/bin/env bash
# Call HF: the variant A/B probe (dense kernels; scripts/variant-ab.sh build main=HEAD
# ring=/tmp/v-ring light=/tmp/v-light both=.; HEAD 9873d0e): `ring` = Q of the three-consumer
# head-dim-128 walk in a ring of four 64-row parts (ring.patch), `light` = the walk's short split
# tiles dealt to the CTAs with a full tile fewer, at most two each (light.patch), `both` = the two.
# 9 rounds, O bit for bit against main. From the checkout root on the GPU host; $OUT/call-hf/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hf
mkdir -p "$o"
start=$SECONDS
a=m192n80w16s4ws b=m192n128w16s4ws
timeout 400 scripts/variant-ab.sh run 9 \
  "$a bf16 8 16 2048 128" "$a f16 8 16 2048 128" "$a bf16 16 16 1024 128" "$a bf16 4 16 4096 128" \
  "$a bf16 2 16 8192 128" "m128n176w12s2ws bf16 8 16 2048 128" \
  "$b bf16 4 32 4096 64" "$b f16 4 32 4096 64" "$b bf16 16 32 1024 64" "$b f16 8 16 512 64" \
  "$b f16 4 16 512 64" "m128n128w12s4ws f16 8 16 512 64" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
tail -40 "$o/variant-ab.txt"
