#!/usr/bin/env bash
# Call HG: the variant A/B probe, every variant compiled (PROBE_EVERY_VARIANT=1
# scripts/variant-ab.sh build main=HEAD light2=. both2=/tmp/v-both2; HEAD 9873d0e): `light2` =
# the light deal compiled only into the walks that split short tiles (light2.patch; every other
# kernel main's SASS), `both2` = light2 and the Q part ring with the consumer's Q address worked
# out once a tile (ring2.patch on top). The head-dim-64 kernels of light2 and both2 are the same
# code, the head-dim-128 ones of light2 main's. 11 rounds, O bit for bit against main.
# From the checkout root on the GPU host; results in $OUT/call-hg/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hg
mkdir -p "$o"
start=$SECONDS
a=m192n80w16s4ws b=m192n128w16s4ws
timeout 400 scripts/variant-ab.sh run 11 \
  "$b bf16 4 32 4096 64" "$b f16 4 32 4096 64" "$b bf16 4 32 4096 64 softcap=30" "$b bf16 4 32 4096 64 sinks" \
  "$b bf16 4 32 4096 64 lse" "$b bf16 16 32 1024 64" "$b f16 8 16 512 64" "$b f16 4 16 512 64" \
  "$a bf16 8 16 2048 128" "$a f16 8 16 2048 128" "$a bf16 16 16 1024 128" "$a bf16 4 16 4096 128" \
  "$a bf16 8 16 2048 128 softcap=30" "$a bf16 2 16 8192 128" "m128n176w12s2ws bf16 8 16 2048 128" \
  "m128n128w12s4ws f16 8 16 512 64" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
grep -E "^(light2|both2) " "$o/variant-ab.txt" | sed -E 's/ +p50 +[0-9.]+ us +[0-9.]+ TFLOP\/s//' | cut -c1-150
tail -1 "$o/variant-ab.txt"
