#!/usr/bin/env bash
# Call KAY: the same pack as calls KAV and KAW (b1679c5), the tuning loop on the seed suite alone (its B8 H16 shape
# read 1.100x cuDNN in call KAW, at the target's edge): `flashattn-bench tune` over every compiled configuration that
# runs each seed shape, then the tuned table against the dispatcher, two repetitions. Nothing is changed by it; a row
# the table should take shows as a pooled gain in both repetitions.
set -u
root=${OUT:-gpu-out}; base=$root/call-kay; mkdir -p "$base"
rm -rf dist/gpu; tar -xJf dist/gpu.txz -C dist
start=$SECONDS
OUT=$base TUNE_ARGS='--suite seed' TUNED_AB_ARGS='--suite seed --modes graph --iters 50' AB_REPS=2 \
  timeout 500 scripts/gpu-run.sh tune tuned-ab > /dev/null 2>&1
echo "call kay: $((SECONDS - start)) s" >> "$base/summary.txt"
cp "$base/summary.txt" "$root/call-kay-summary.txt"
tar -czf "$root/call-kay.tgz" -C "$root" call-kay && rm -rf "$base"
cut -c1-200 "$root/call-kay-summary.txt" | tail -60
