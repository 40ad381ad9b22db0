#!/usr/bin/env bash
# Call AE: the final build under compute-sanitizer, each run under a time limit so the call ends
# with whatever finished: the GPU grid (small shapes, every configuration, masks and score
# modifiers) under memcheck; the awkward-shapes grid under racecheck; the fuzzer on the head dim
# 64 ws tiles at sizes that launch the persistent kernel (TMA stores of O from its own tile) and
# on the head dim 128 / 256 ws tiles (TMA stores from Q's buffer), under racecheck and memcheck;
# then the masks grid under racecheck for the time left. From the checkout root on the GPU host;
# results in $OUT/call-ae/summary.txt.
set -uo pipefail
o=${OUT:-gpu-out}/call-ae; mkdir -p "$o"
bin=dist/gpu/bin
[ -d "$bin" ] || tar -xJf dist/gpu.txz -C dist
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
s=$o/summary.txt
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)  commit: $(cat dist/gpu/COMMIT)" > "$s"
run() {  # LABEL SECONDS TOOL COMMAND...
  local label=$1 limit=$2 tool=$3; shift 3
  local start=$SECONDS
  timeout "$limit" "$san" --tool "$tool" --error-exitcode 9 "$@" > "$o/$label.log" 2>&1
  local rc=$?
  echo "$label ($tool): rc=$rc$([ $rc = 124 ] && echo ' (time limit)') in $((SECONDS - start)) s;" \
    "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/$label.log" | tail -1);" \
    "$(grep -E '[0-9]+ cases|test result' "$o/$label.log" | tail -2 | tr '\n' ' ')" >> "$s"
}
d64=sm90_bf16_d64_m128n128w12s4ws,sm90_f16_d64_m192n128w16s4ws,sm90_bf16_d64_m192n128w16s4ws
wide=sm90_bf16_d128_m128n128w12s3ws,sm90_f16_d128_m128n176w12s2ws,sm90_bf16_d256_m128n80w12s2ws,sm90_f16_d256_m128n64w12s2ws
export FLASHATTN_TEST_SMALL=1
run grid-memcheck 120 memcheck "$bin/fuzz--gpu_grid" --include-ignored --test-threads=1 \
  every_config_on_awkward_shapes masks_and_score_mods_on_every_config
run grid-racecheck-awkward 170 racecheck "$bin/fuzz--gpu_grid" --include-ignored --test-threads=1 every_config_on_awkward_shapes
run fuzz-d64-racecheck 90 racecheck "$bin/flashattn-fuzz" --max-seqlen 600 --config "$d64" --cases 6 --seed 7
run fuzz-wide-racecheck 60 racecheck "$bin/flashattn-fuzz" --small --features always --config "$wide" --cases 8 --seed 8
run fuzz-d64-memcheck 40 memcheck "$bin/flashattn-fuzz" --max-seqlen 600 --config "$d64" --cases 30 --seed 9
run grid-racecheck-masks 150 racecheck "$bin/fuzz--gpu_grid" --include-ignored --test-threads=1 masks_and_score_mods_on_every_config
cat "$s"
