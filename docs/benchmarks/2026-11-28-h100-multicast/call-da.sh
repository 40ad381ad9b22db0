#!/usr/bin/env bash
# Call DA: branch multicast at f9a7b3d (the pairs' releases at CTA scope, no GPU-wide memory
# barrier left; dist/gpu.txz) against main (f3dd3d5's kernels = d2724fd's, dist/main-bench.xz):
# ws_paired_tiles alone under a time limit, then the seed and long suites, graph replay, 30
# samples, three alternating pairs, pooled; where no paired shape reads slower, the regression
# gate with SDPA's backends timed beside ours; every GPU test; the fuzzer on the head-dim-128/256
# ws tiles; ws_paired_tiles under memcheck, racecheck and synccheck.
# From the checkout root on the GPU host; results in $OUT/call-da/.
set -uo pipefail
[ -d dist/gpu ] || tar -xJf dist/gpu.txz -C dist
dir=${OUT:-gpu-out}/call-da
mkdir -p "$dir"
timeout 120 dist/gpu/bin/fuzz--gpu_grid --include-ignored --exact ws_paired_tiles --nocapture > "$dir/smoke.log" 2>&1
rc=$?; echo "smoke ws_paired_tiles: rc=$rc"; tail -5 "$dir/smoke.log"
[ $rc = 0 ] || exit 1
ws=sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d128_m128n128w12s3ws,sm90_f16_d128_m128n176w12s2ws,sm90_bf16_d128_m128n176w12s2ws
ws=$ws,sm90_f16_d256_m128n64w12s2ws,sm90_bf16_d256_m128n64w12s2ws,sm90_f16_d256_m128n80w12s2ws,sm90_bf16_d256_m128n80w12s2ws
OUT=$dir AB_OLD=dist/main-bench.xz AB_REPS=3 AB_ARGS='--suite seed,long --modes graph --iters 30' scripts/gpu-run.sh ab
mv "$dir/summary.txt" "$dir/summary-ab.txt"; mv "$dir/logs.tar.gz" "$dir/logs-ab.tar.gz" 2>/dev/null
steps="tests fuzz test-sanitizer"
grep -E 'D(128|256) ' "$dir/ab-pooled.txt" | grep -v causal | grep -q SLOWER || steps="regression $steps"
echo "steps: $steps"
OUT=$dir GATE_SDPA=1 FUZZ_ARGS="--cases 300 --seed 439 --max-seqlen 2048 --head-dim 128,256 --config $ws" \
  SANITIZE_TEST=ws_paired_tiles SANITIZER_LIMIT=120 scripts/gpu-run.sh $steps
