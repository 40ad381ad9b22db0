#!/usr/bin/env bash
# Call EF: build 77c7394 (dist/gpu.txz): ws_short_last_tiles (its 160-tile head-dim-128 cases walk)
# under memcheck, racecheck and synccheck; 20 fuzz cases on the head-dim-128 ws tiles with
# sequences up to 2048 under memcheck; the seed and long suites beside PyTorch's SDPA backends
# (graph replay); the variant A/B probe (dist/variant-ab, main d30b9b4 against this checkout's
# kernels) on two shapes. From the checkout root on the GPU host; results in $OUT/call-ef/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ef
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=150 scripts/gpu-run.sh test-sanitizer > "$o/test-sanitizer.log" 2>&1
ws=sm90_bf16_d128_m128n176w12s2ws,sm90_f16_d128_m128n176w12s2ws,sm90_bf16_d128_m128n128w12s3ws
ws+=,sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d128_m192n80w16s4ws,sm90_f16_d128_m192n80w16s4ws
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
start=$SECONDS
timeout 150 "$san" --tool memcheck --error-exitcode 9 dist/gpu/bin/flashattn-fuzz --cases 20 --seed 527 --head-dim 128 \
  --config "$ws" --max-seqlen 2048 > "$o/fuzz-d128-memcheck.log" 2>&1
echo "d128 ws fuzz under memcheck (20 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY' "$o/fuzz-d128-memcheck.log" | tail -1); $(grep -E 'cases, [0-9]+ failed|persistent ws walk' "$o/fuzz-d128-memcheck.log" | tail -2 | tr '\n' ' ')" > "$o/memcheck.txt"
OUT=$o/bench BENCH_ARGS='run --suite seed,long --modes graph --iters 50' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
dist/variant-ab/variant-ab 9 "m128n176w12s2ws bf16 8 16 2048 128" "m192n128w16s4ws f16 8 16 512 64" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/variant-ab.txt"
cat "$o/san/summary.txt" "$o/memcheck.txt" "$o/variant-ab.txt"
tail -42 "$o/bench/summary.txt"
