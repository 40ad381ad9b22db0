#!/usr/bin/env bash
# Call K: part of the softcap's exp2 on the FMA pipe (this build, 0b20903) against 01cc363
# (AB_OLD): the masks suite (every score modifier on the bf16 long shapes) and the long suite, same
# run, twice; Nsight Compute of the softcap shapes of call J. STEPS=checks runs the correctness
# half instead: issue 14's accuracy comparison (ours, naive, SDPA against the f64 reference), the
# grid tests, 1,500 fuzz cases with a feature in every case, the grid sanitizer. From the checkout root on the GPU host; everything lands in
# $OUT/call-k.tgz.
set -uo pipefail
out=${OUT:-gpu-out}/call-k
mkdir -p "$out/ncu"
tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
# STEPS=checks: the correctness half instead (accuracy, grid tests, fuzz, grid sanitizer).
if [ "${STEPS:-timing}" = checks ]; then
  TEST_FILTER='gpu_grid' FUZZ_ARGS='--cases 1500 --seed 11 --features always' \
    OUT="$out/run" scripts/gpu-run.sh accuracy tests fuzz sanitizer > /dev/null 2>&1
  mkdir -p "$out/run-logs" && tar -xzf "$out/run/logs.tar.gz" -C "$out/run-logs" && rm -f "$out/run/logs.tar.gz"
  tar -czf "${OUT:-gpu-out}/call-k-checks.tgz" -C "$(dirname "$out")" call-k
  cat "$out/run/summary.txt"
  exit 0
fi
AB_OLD=${AB_OLD:?the previous build of flashattn-bench, .xz} AB_REPS=2 AB_ARGS='--suite masks,long --modes graph --iters 30' \
  OUT="$out/ab" scripts/gpu-run.sh ab > /dev/null 2>&1
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for shape in 'bf16 B4 H32/32 S4096x4096 D64 softcap30' 'bf16 B2 H16/16 S8192x8192 D128 softcap30'; do
  tag=$(echo "$shape" | tr -c 'A-Za-z0-9\n' _)
  timeout 150 "$ncu" --kernel-name regex:'ws_kernel|fwd_kernel' --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section InstructionStats --section Occupancy \
    "$bin/flashattn-bench" run --suite long,masks --shapes "$shape" --modes events --iters 3 --baseline none \
    --out /tmp/ncu-x.json > "$out/ncu/$tag.txt" 2>&1
  echo "$tag: $(grep -E 'Duration|Issue Slots Busy|SM Busy|No Eligible' "$out/ncu/$tag.txt" | awk '{$1=$1};1' | tr '\n' ';')" >> "$out/ncu/summary.txt"
done
mkdir -p "$out/ab-logs" && tar -xzf "$out/ab/logs.tar.gz" -C "$out/ab-logs" && rm -f "$out/ab/logs.tar.gz"
rm -f "$out"/ab-logs/*.csv
tar -czf "${OUT:-gpu-out}/call-k.tgz" -C "$(dirname "$out")" call-k
cat "$out/ab/summary.txt"
for r in 1 2; do awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "  %-52s %s %s %s %s\n", shape, $3, $4, $5, $NF}' "$out/ab-logs/ab-compare-$r.txt"; done
cat "$out/ncu/summary.txt"
