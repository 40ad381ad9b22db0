#!/usr/bin/env bash
# Call CN: branch alibi-split (dist/gpu.txz: ALiBi's bias split into a per-element immediate and a
# per-row constant the softmax takes into its max) against main (a63c88a = 4df2f54's kernels,
# dist/main-bench.xz): masks and long suites, graph replay, 30 samples, three alternating pairs;
# then what each modifier costs over plain attention in every run of either build (costs.py).
# From the checkout root on the GPU host; results in $OUT/call-cn/.
set -uo pipefail
here=docs/benchmarks/2026-11-27-h100-alibi-split
o=${OUT:-gpu-out}/call-cn
OUT=$o AB_OLD=dist/main-bench.xz AB_REPS=3 AB_ARGS='--suite masks,long --modes graph --iters 30' \
  scripts/gpu-run.sh ab
for side in old new; do
  python3 $here/costs.py $(ls "$o"/work/ab-$side-*.json) > "$o/costs-$side.txt" 2>&1
done
{ echo "== main (old)"; cat "$o/costs-old.txt"; echo "== alibi-split (new)"; cat "$o/costs-new.txt"; } | tee -a "$o/summary.txt"
