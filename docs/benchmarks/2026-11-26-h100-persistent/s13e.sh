#!/bin/bash
# session 13, call I: the long suite beside SDPA with the updated H100 table (read at run time
# through FLASHATTN_DISPATCH, the same rows the next build embeds).
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT) table $(git rev-parse --short HEAD 2>/dev/null)"
export FLASHATTN_DISPATCH=$PWD/crates/flashattn/dispatch/nvidia-h100-80gb-hbm3.tsv
timeout 200 $bin/flashattn-bench run --suite long --modes graph --iters 30 --out $o/long.json > $o/long.log 2>&1
note "bench long with SDPA (FLASHATTN_DISPATCH): rc=$?"; grep -E "^(bf16|f16)" $o/long.log | tail -10 | tee -a $s
base="docs/benchmarks/baseline-$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' _).json"
$bin/flashattn-report compare --mode graph "$base" $o/long.json > $o/gate-long.txt 2>&1; note "gate long vs $base: exit $? ($(tail -1 $o/gate-long.txt))"
mkdir -p $o/r && mv $o/*.json $o/*.md $o/*.csv $o/r/ 2>/dev/null
cd $o && tar -czf results.tgz r *.log *.txt 2>/dev/null; rm -rf r *.log
