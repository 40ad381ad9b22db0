#!/bin/bash
# session 12, call C (causal tile order in L2 sections): seed suite alone first (cool GPU), correctness, long+varlen beside SDPA, masks alone; gates
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT)"
base="docs/benchmarks/baseline-$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' _).json"
st=$SECONDS; timeout 120 $bin/flashattn-bench run --suite seed --modes graph --iters 30 --out $o/seed.json > $o/seed.log 2>&1
note "bench seed (first, cool): rc=$? ($((SECONDS-st))s)"; grep -E "^f16" $o/seed.log | tail -10 | tee -a $s
$bin/flashattn-report compare --mode graph "$base" $o/seed.json > $o/gate-seed.txt 2>&1
note "gate seed vs $base: exit $? ($(tail -1 $o/gate-seed.txt))"
$bin/flashattn-report compare --mode graph docs/benchmarks/2026-11-25-h100-ws/bench.json $o/seed.json > $o/gate-seed-vs-ce30fde.txt 2>&1
note "gate seed vs ce30fde: exit $? ($(tail -1 $o/gate-seed-vs-ce30fde.txt))"
for t in fuzz--gpu_grid fuzz--gpu_varlen flashattn--validation; do
  st=$SECONDS; timeout 100 $bin/$t --include-ignored --nocapture --test-threads=4 > $o/test-$t.log 2>&1; rc=$?
  note "test $t: rc=$rc $(grep -E '^test result' $o/test-$t.log | tail -1) ($((SECONDS-st))s)"
  grep -E "^(grid|configs|warp-spec|varlen|masks)" $o/test-$t.log | sed 's/^/    /' | tee -a $s
  [ $rc -ne 0 ] && grep -E "FAILED|panicked|failed" $o/test-$t.log | head -12 | sed 's/^/    /' | tee -a $s
done
st=$SECONDS; timeout 200 $bin/flashattn-bench run --suite long,varlen --modes graph --iters 30 --out $o/long.json > $o/long.log 2>&1
note "bench long,varlen: rc=$? ($((SECONDS-st))s)"; grep -E "^(bf16|f16)" $o/long.log | tail -13 | tee -a $s
$bin/flashattn-report compare --mode graph dist/ref/s12b-bench.json $o/long.json > $o/gate-long-vs-s12b.txt 2>&1
note "gate long,varlen vs call B (before the tile order): exit $? ($(tail -1 $o/gate-long-vs-s12b.txt))"
st=$SECONDS; timeout 100 $bin/flashattn-bench run --suite masks --modes graph --iters 20 --baseline none --out $o/masks.json > $o/masks.log 2>&1
note "bench masks (ours only): rc=$? ($((SECONDS-st))s)"; grep -E "^(bf16|f16)" $o/masks.log | tail -25 | tee -a $s
for e in 0 4 2; do timeout 60 dist/poly/poly$e every$e > $o/poly$e.log 2>&1; note "poly harness every=$e: rc=$?"; cat $o/poly$e.log | tee -a $s; done
cd $o && tar -czf logs.tgz *.log *.txt 2>/dev/null; rm -f *.log
