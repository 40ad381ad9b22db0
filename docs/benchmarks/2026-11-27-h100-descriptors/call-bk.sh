#!/usr/bin/env bash
# Call BK: the build to land, D (d8ac193): first every head-dim-64 configuration timed on the three
# shapes it moved most (bf16 B16 H32 S1024, 2.8-3.6% slower in call BJ; f16 B4 H16 and B8 H16 S512,
# 3-4% faster), D's and main's bench (12d5a33) in turn; then every GPU test, 150 fuzz cases, the
# grid (small shapes) under memcheck, the fuzzer with every feature under memcheck, racecheck and
# synccheck (small shapes); then Nsight Compute's executed instructions per SASS opcode of ours and
# cuDNN's kernel on f16 B8 H16 S512 D64. From the checkout root on the GPU host with dist/gpu.txz
# and dist/12d5a33-bench.xz; results in $OUT/call-bk/ (summary.txt, configs-*.txt, fuzz.json,
# logs.tar.gz, opcodes.txt).
set -uo pipefail
o=${OUT:-gpu-out}/call-bk; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
xz -dc dist/12d5a33-bench.xz > /tmp/main-bench && chmod +x /tmp/main-bench
shapes='bf16 B16 H32/32 S1024x1024 D64,f16 B4 H16/16 S512x512 D64,f16 B8 H16/16 S512x512 D64'
for who in main D; do
  b=dist/gpu/bin/flashattn-bench; [ $who = main ] && b=/tmp/main-bench
  $b run --suite long,seed --shapes "$shapes" --kernel all --modes graph --iters 30 --baseline none \
    --out "$o/configs-$who.json" > "$o/configs-$who.txt" 2>&1
done
OUT=${OUT:-gpu-out}/call-bk \
  FUZZ_ARGS='--cases 150 --seed 107' \
  SANITIZER_TOOLS='memcheck' SANITIZER_LIMIT=120 \
  FUZZ_SANITIZER_ARGS='--small --features always' FUZZ_SANITIZER_CASES='60 30 30' \
  scripts/gpu-run.sh tests fuzz sanitizer fuzz-sanitizer
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
py=/opt/torch/.venv/bin/python3; [ -x "$py" ] || py=python3
m='--metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum --print-metric-instances values --cache-control none --clock-control none'
{
  echo "== ours f16 B8 H16 S512 D64"
  timeout 120 "$ncu" $m --kernel-name regex:'ws_kernel|fwd_kernel' --launch-skip 5 --launch-count 1 \
    dist/gpu/bin/flashattn-bench run --suite seed --shapes 'f16 B8 H16/16 S512x512 D64' --modes events --iters 5 \
    --baseline none --out /tmp/ncu-x.json 2>&1 | grep -E 'sass__inst|smsp__inst|ws_kernel|fwd_kernel'
  echo "== cudnn f16 B8 H16 S512 D64"
  timeout 120 "$ncu" $m --profile-from-start off "$py" docs/benchmarks/2026-11-27-h100-seed-profile/cudnn_one.py 8 16 512 64 2>&1 | grep -E 'sass__inst|smsp__inst|cudnn'
} > "$o/opcodes.txt" 2>&1
tail -c 3000 "$o/opcodes.txt"
