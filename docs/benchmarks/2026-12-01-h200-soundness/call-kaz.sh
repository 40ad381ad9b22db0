#!/usr/bin/env bash
# Call KAZ: the same pack as calls KAV and KAW (b1679c5), the tuning loop on the long and d96 suites (the long bf16
# S2048 D128 shape is at 1.039x cuDNN against issue 12's 1.05x: does any compiled tile beat the dispatcher's choice?): `flashattn-bench tune` over every compiled configuration
# that runs each shape, then the tuned table against the dispatcher, two repetitions. Nothing is changed by it; a row
# the table should take shows as a pooled gain in both repetitions.
set -u
root=${OUT:-gpu-out}; base=$root/call-kaz; mkdir -p "$base"
rm -rf dist/gpu; tar -xJf dist/gpu.txz -C dist
start=$SECONDS
OUT=$base TUNE_ARGS='--suite long,d96' TUNED_AB_ARGS='--suite long,d96 --modes graph --iters 30' AB_REPS=2 \
  timeout 500 scripts/gpu-run.sh tune tuned-ab > /dev/null 2>&1
echo "call kaz: $((SECONDS - start)) s" >> "$base/summary.txt"
cp "$base/summary.txt" "$root/call-kaz-summary.txt"
tar -czf "$root/call-kaz.tgz" -C "$root" call-kaz && rm -rf "$base"
cut -c1-200 "$root/call-kaz-summary.txt" | tail -60
