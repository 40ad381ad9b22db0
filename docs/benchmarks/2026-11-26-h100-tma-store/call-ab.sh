#!/usr/bin/env bash
# Call AB: the ws kernel's O by TMA store and LSE's log by lg2.approx (branch ws-tma-store) against
# main's build (the 1ef9ee0 pack: kernels of 36f14cf), same run: seed, long and masks suites, two
# alternating repetitions; then the GPU grid, varlen and validation tests and 300 fuzz cases
# (O layouts other than Q's, padded O rows, every feature). From the checkout root on the GPU host;
# results in $OUT/call-ab/ (summary.txt,
# logs.tar.gz, ratios.txt).
set -uo pipefail
root=$(pwd)
OUT=${OUT:-gpu-out}/call-ab AB_OLD=dist/main-bench.xz AB_REPS=2 \
  AB_ARGS='--suite seed,long,masks --modes graph --iters 30' \
  TEST_FILTER='gpu_grid|gpu_varlen|validation|flashattn_sys' \
  FUZZ_ARGS='--cases 300 --seed 93' \
  scripts/gpu-run.sh ab tests fuzz
o=$(cd "${OUT:-gpu-out}/call-ab" && pwd)
t=$(mktemp -d); tar -xzf "$o/logs.tar.gz" -C "$t" --wildcards './ab-*.json'
(cd "$t" && python3 "$root/docs/benchmarks/2026-11-26-h100-softcap-deferred/ratios.py" > "$o/ratios.txt" 2>&1)
cat "$o/ratios.txt"
