#!/bin/bash
# session 12, call B: masks, long, varlen and seed suites beside SDPA; gates against the stored baseline and against the ws run (ce30fde)
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT)"
st=$SECONDS; timeout 480 $bin/flashattn-bench run --suite masks,long,varlen,seed --modes graph --iters 20 --out $o/bench.json > $o/bench.log 2>&1
note "bench masks,long,varlen,seed: rc=$? ($((SECONDS-st))s)"; tail -60 $o/bench.log | tee -a $s
base="docs/benchmarks/baseline-$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' _).json"
$bin/flashattn-report compare --mode graph "$base" $o/bench.json > $o/gate.txt 2>&1
note "gate vs $base: exit $? ($(tail -1 $o/gate.txt))"
$bin/flashattn-report compare --mode graph docs/benchmarks/2026-11-25-h100-ws/bench.json $o/bench.json > $o/gate-vs-ce30fde.txt 2>&1
note "gate vs ce30fde (seed+long): exit $? ($(tail -1 $o/gate-vs-ce30fde.txt))"
cd $o && tar -czf logs.tgz *.log *.txt 2>/dev/null; rm -f *.log
