#!/usr/bin/env bash
# Calls KAY and KAZ: the same pack as calls KAV and KAW (b1679c5), the tuning loop on some suites:
# `flashattn-bench tune` over every compiled configuration that runs each shape, then the tuned table against the
# dispatcher, two repetitions. Nothing is changed by it; a row the table should take shows as a gain in both.
#
#   bash call-tune.sh kay seed 50        # call KAY: the seed suite (B8 H16 read 1.100x cuDNN in call KAW)
#   bash call-tune.sh kaz long,d96 30    # call KAZ: bf16 S2048 D128 at 1.039x against issue 12's 1.05x
#
# Arguments: the call's name, the suites, the tuned-ab step's graph iterations.
set -u
call=$1 suites=$2 iters=$3
root=${OUT:-gpu-out}; base=$root/call-$call; mkdir -p "$base"
rm -rf dist/gpu; tar -xJf dist/gpu.txz -C dist
start=$SECONDS
OUT=$base TUNE_ARGS="--suite $suites" TUNED_AB_ARGS="--suite $suites --modes graph --iters $iters" AB_REPS=2 \
  timeout 500 scripts/gpu-run.sh tune tuned-ab > /dev/null 2>&1
echo "call $call: $((SECONDS - start)) s" >> "$base/summary.txt"
cp "$base/summary.txt" "$root/call-$call-summary.txt"
tar -czf "$root/call-$call.tgz" -C "$root" "call-$call" && rm -rf "$base"
cut -c1-200 "$root/call-$call-summary.txt" | tail -60
