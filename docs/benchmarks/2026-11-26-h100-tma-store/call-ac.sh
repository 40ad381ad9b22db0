#!/usr/bin/env bash
# Call AC: the ws kernel persistent at head dims 128 and 256 too (O staged in Q's buffer, released
# by each consumer's TMA store; branch ws-persistent-all, 5f603ed) against the TMA-store build
# before it (c211e18), same run: seed, long and masks suites, two alternating repetitions; then
# the fuzzer on the head dim 128 and 256 ws tiles alone (up to S4096: many launches persistent)
# and those tiles up to S600 under memcheck, racecheck and synccheck. From the checkout root on
# the GPU host; results in $OUT/call-ac/ (summary.txt, logs.tar.gz, ratios.txt).
set -uo pipefail
root=$(pwd)
ws=sm90_bf16_d128_m128n128w12s3ws,sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d128_m128n176w12s2ws,sm90_f16_d128_m128n176w12s2ws
ws=$ws,sm90_bf16_d256_m128n64w12s2ws,sm90_f16_d256_m128n64w12s2ws,sm90_bf16_d256_m128n80w12s2ws,sm90_f16_d256_m128n80w12s2ws
OUT=${OUT:-gpu-out}/call-ac AB_OLD=dist/c211e18-bench.xz AB_REPS=2 \
  AB_ARGS='--suite seed,long,masks --modes graph --iters 30' \
  FUZZ_ARGS="--cases 300 --config $ws --seed 94" \
  FUZZ_SANITIZER_ARGS="--max-seqlen 600 --config $ws" FUZZ_SANITIZER_CASES='24 6 8' \
  scripts/gpu-run.sh ab fuzz fuzz-sanitizer
o=$(cd "${OUT:-gpu-out}/call-ac" && pwd)
t=$(mktemp -d); tar -xzf "$o/logs.tar.gz" -C "$t" --wildcards './ab-*.json'
(cd "$t" && python3 "$root/docs/benchmarks/2026-11-26-h100-softcap-deferred/ratios.py" > "$o/ratios.txt" 2>&1)
grep -E 'persistent|^all|failed' "$o/summary.txt" | head; cat "$o/ratios.txt"
