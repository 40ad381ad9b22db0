#!/usr/bin/env bash
# Call DQ: main's build d743eaa (dist/gpu.txz; kernels as 9a7b251's, the fuzzer with the new
# coverage edge for the head-dim-128 walk): 300 fuzz cases on the six head-dim-128 ws tiles,
# sequences up to 1024 (where the walk runs), features mixed, and 200 over every configuration.
# From the checkout root on the GPU host; results in $OUT/call-dq/.
set -uo pipefail
o=${OUT:-gpu-out}/call-dq
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
ws=sm90_bf16_d128_m128n176w12s2ws,sm90_f16_d128_m128n176w12s2ws,sm90_bf16_d128_m128n128w12s3ws
ws+=,sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d128_m192n80w16s4ws,sm90_f16_d128_m192n80w16s4ws
dist/gpu/bin/flashattn-fuzz --cases 300 --seed 503 --head-dim 128 --config "$ws" --max-seqlen 1024 \
  --json "$o/fuzz-d128-ws.json" > "$o/fuzz-d128-ws.log" 2>&1
echo "d128 ws fuzz: rc=$?" | tee "$o/summary.txt"
dist/gpu/bin/flashattn-fuzz --cases 200 --seed 509 --json "$o/fuzz-all.json" > "$o/fuzz-all.log" 2>&1
echo "fuzz over every configuration: rc=$?" | tee -a "$o/summary.txt"
for f in fuzz-d128-ws fuzz-all; do
  grep -E "persistent|cases, [0-9]+ failed|worst error ratio|all .* cases passed" "$o/$f.log" | head -6 | sed "s/^/$f: /" | tee -a "$o/summary.txt"
done
