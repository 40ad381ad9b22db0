#!/usr/bin/env bash
# Call HH: the variant A/B probe, dense kernels (scripts/variant-ab.sh build main=HEAD
# light2=HEAD+light2.patch light3=.; HEAD 9873d0e): `light3` = light2 with the light order read
# as one comparison (`round < light_from`, past any round where the deal has no light order)
# instead of a deal kind of its own. 15 rounds, O bit for bit against main.
# From the checkout root on the GPU host; results in $OUT/call-hh/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hh
mkdir -p "$o"
start=$SECONDS
b=m192n128w16s4ws
timeout 400 scripts/variant-ab.sh run 15 \
  "$b bf16 4 32 4096 64" "$b f16 4 32 4096 64" "$b bf16 16 32 1024 64" "$b f16 8 16 512 64" \
  "$b f16 4 16 512 64" "$b bf16 2 32 1024 64" "$b f16 8 16 512 64 causal" "m128n128w12s4ws f16 8 16 512 64" \
  > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
grep -E "^(light2|light3) " "$o/variant-ab.txt" | sed -E 's/ +p50 +[0-9.]+ us +[0-9.]+ TFLOP\/s//' | cut -c1-150
tail -1 "$o/variant-ab.txt"
