#!/bin/bash
# session 12, call E (section size by shifts): seed first (cool), grid/varlen/validation tests, memcheck, long+varlen beside SDPA; gates
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
  grep -E "^(grid|configs|warp-spec|varlen|masks|variants)" $o/test-$t.log | sed 's/^/    /' | tee -a $s
  [ $rc -ne 0 ] && grep -E "FAILED|panicked|failed" $o/test-$t.log | head -12 | sed 's/^/    /' | tee -a $s
done
st=$SECONDS; FLASHATTN_TEST_SMALL=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $bin/fuzz--gpu_grid --include-ignored --test-threads=1 every_config_on_awkward_shapes masks_and_score_mods_on_every_config > $o/san-grid-memcheck.log 2>&1
note "memcheck, grid awkward + masks (small): rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY' $o/san-grid-memcheck.log | tail -1)"
st=$SECONDS; timeout 200 $bin/flashattn-bench run --suite long,varlen --modes graph --iters 30 --out $o/long.json > $o/long.log 2>&1
note "bench long,varlen with SDPA: rc=$? ($((SECONDS-st))s)"; grep -E "^(bf16|f16)" $o/long.log | tail -13 | tee -a $s
$bin/flashattn-report compare --mode graph "$base" $o/long.json > $o/gate-long.txt 2>&1
note "gate long vs $base: exit $? ($(tail -1 $o/gate-long.txt))"
$bin/flashattn-report compare --mode graph dist/ref/s12d-bench.json $o/long.json > $o/gate-long-vs-s12d.txt 2>&1
note "gate long,varlen vs call D (float section): exit $? ($(tail -1 $o/gate-long-vs-s12d.txt))"
mkdir -p $o/r && mv $o/*.json $o/*.csv $o/*.md $o/r/ 2>/dev/null
cd $o && tar -czf results.tgz r *.log *.txt 2>/dev/null; rm -rf r *.log
