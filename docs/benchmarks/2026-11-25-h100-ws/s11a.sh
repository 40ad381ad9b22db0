#!/bin/bash
# session 11, call A: GPU tests, fuzz over the warp-specialized configs, sanitizers on every config x awkward shapes
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT)"
for t in $bin/*--*; do
  n=$(basename $t); st=$SECONDS
  timeout 200 $t --include-ignored --nocapture --test-threads=4 > $o/test-$n.log 2>&1; rc=$?
  note "test $n: rc=$rc $(grep -E '^test result' $o/test-$n.log | tail -1) ($((SECONDS-st))s)"
  grep -E "^(grid|configs|worst|warp-spec|variants)" $o/test-$n.log | sed 's/^/    /' | tee -a $s
  [ $rc -ne 0 ] && grep -E "FAILED|panicked" $o/test-$n.log | head -8 | sed 's/^/    /' | tee -a $s
done
WS=$($bin/flashattn-bench --help >/dev/null 2>&1; echo sm90_f16_d64_m128n128w12s4ws,sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d64_m128n128w12s4ws,sm90_bf16_d128_m128n128w12s3ws)
st=$SECONDS; timeout 150 $bin/flashattn-fuzz --config $WS --features off --seconds 110 --seed 31 --json $o/fuzz-ws.json > $o/fuzz-ws.log 2>&1
note "fuzz ws features off: rc=$? ($((SECONDS-st))s) $(grep -E 'cases|passed|failed|worst' $o/fuzz-ws.log | tail -3 | tr '\n' ' ')"
st=$SECONDS; timeout 80 $bin/flashattn-fuzz --config $WS --features mixed --seconds 45 --seed 32 > $o/fuzz-ws-mixed.log 2>&1
note "fuzz ws features mixed: rc=$? ($((SECONDS-st))s) $(grep -E 'cases|passed|failed|worst' $o/fuzz-ws-mixed.log | tail -3 | tr '\n' ' ')"
for tool in memcheck racecheck; do
  st=$SECONDS
  FLASHATTN_TEST_SMALL=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $bin/fuzz--gpu_grid --include-ignored --test-threads=1 every_config_on_awkward_shapes > $o/san-$tool.log 2>&1
  note "sanitizer $tool awkward shapes every config: rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/san-$tool.log | tail -1)"
done
cd $o && tar -czf logs.tgz *.log *.json 2>/dev/null; rm -f *.log
