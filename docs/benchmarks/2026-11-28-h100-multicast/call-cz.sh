#!/usr/bin/env bash
# Call CZ: branch multicast at b4773f4 (pairs of CTAs sharing K/V loads by TMA multicast;
# dist/gpu.txz) against main (f3dd3d5's kernels = d2724fd's, dist/main-bench.xz). First the new
# GPU test ws_paired_tiles alone under a time limit (a deadlocked or wrong pair ends the call
# there: b533953's run of this script, then with the long suite only, stopped at it), then the
# seed and long suites, graph replay, 30 samples, four alternating pairs, pooled; every GPU test;
# the fuzzer on the head-dim-128/256 ws tiles; ws_paired_tiles under memcheck, racecheck and
# synccheck. From the checkout root on the GPU host; results in $OUT/call-cz/.
set -uo pipefail
[ -d dist/gpu ] || tar -xJf dist/gpu.txz -C dist
mkdir -p "${OUT:-gpu-out}/call-cz"
timeout 120 dist/gpu/bin/fuzz--gpu_grid --include-ignored --exact ws_paired_tiles --nocapture \
  > "${OUT:-gpu-out}/call-cz/smoke.log" 2>&1
rc=$?; echo "smoke ws_paired_tiles: rc=$rc"; tail -5 "${OUT:-gpu-out}/call-cz/smoke.log"
[ $rc = 0 ] || exit 1
ws=sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d128_m128n128w12s3ws,sm90_f16_d128_m128n176w12s2ws,sm90_bf16_d128_m128n176w12s2ws
ws=$ws,sm90_f16_d256_m128n64w12s2ws,sm90_bf16_d256_m128n64w12s2ws,sm90_f16_d256_m128n80w12s2ws,sm90_bf16_d256_m128n80w12s2ws
OUT=${OUT:-gpu-out}/call-cz AB_OLD=dist/main-bench.xz AB_REPS=4 AB_ARGS='--suite seed,long --modes graph --iters 30' \
  FUZZ_ARGS="--cases 300 --seed 433 --max-seqlen 2048 --head-dim 128,256 --config $ws" \
  SANITIZE_TEST=ws_paired_tiles SANITIZER_LIMIT=150 \
  scripts/gpu-run.sh ab tests fuzz test-sanitizer
