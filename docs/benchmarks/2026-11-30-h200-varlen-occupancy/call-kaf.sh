#!/usr/bin/env bash
# Call KAF: the variant probe alone (dist/variant-ab/variant-ab): scripts/variant-ab.sh build a=HEAD
# b=HEAD at 2117423 with PROBE_FWD_TILES=1 PROBE_EVERY_VARIANT=1 and the probe's tile list cut to
# head dim 64 plus a two-warpgroup three-buffer 128-key tile, m128n128w8s3, which the library does
# not compile (probe-tiles.patch): whether the overlapped schedule (Q.K^T of key tile j+1 issued
# before tile j's softmax) makes the f16 S=512 softcap call cheaper than the library's m128n128w8s2
# (two buffers, two CTAs an SM). Variants a and b are the same source (their ratio is the probe's
# noise); the tiles are compared within a variant. Output: $OUT/call-kaf.txt.
set -u
root=${OUT:-gpu-out}; mkdir -p "$root"
shapes=()
for mods in softcap=30 "" alibi; do
  for tile in m128n128w8s2 m128n128w8s3 m64n128w4s2 m64n128w4s3 m128n128w12s4ws; do
    shapes+=("$tile f16 4 16 512 64 $mods")
  done
done
for tile in m128n128w8s2 m128n128w8s3 m128n128w12s4ws; do
  shapes+=("$tile f16 8 16 512 64 softcap=30" "$tile bf16 4 16 512 64 softcap=30" "$tile f16 2 8 512 64 softcap=30")
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$root/call-kaf.txt"
timeout 200 scripts/variant-ab.sh run 15 "${shapes[@]}" >> "$root/call-kaf.txt" 2>&1
echo "rc=$?" >> "$root/call-kaf.txt"
tail -70 "$root/call-kaf.txt"
