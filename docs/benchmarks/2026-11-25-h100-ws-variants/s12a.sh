#!/bin/bash
# session 12, call A: every variant on the ws kernel: GPU tests, fuzz with features on the ws configs, sanitizers
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT)"
for t in $bin/*--*; do
  n=$(basename $t); st=$SECONDS
  timeout 150 $t --include-ignored --nocapture --test-threads=4 > $o/test-$n.log 2>&1; rc=$?
  note "test $n: rc=$rc $(grep -E '^test result' $o/test-$n.log | tail -1) ($((SECONDS-st))s)"
  grep -E "^(grid|configs|warp-spec|variants|varlen|masks)" $o/test-$n.log | sed 's/^/    /' | tee -a $s
  [ $rc -ne 0 ] && grep -E "FAILED|panicked|failed" $o/test-$n.log | head -12 | sed 's/^/    /' | tee -a $s
done
WS=sm90_f16_d64_m128n128w12s4ws,sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d64_m128n128w12s4ws,sm90_bf16_d128_m128n128w12s3ws,sm90_f16_d256_m128n64w12s2ws,sm90_bf16_d256_m128n64w12s2ws
st=$SECONDS; timeout 80 $bin/flashattn-fuzz --config $WS --features always --seconds 60 --seed 61 --json $o/fuzz-ws-features.json > $o/fuzz-ws-features.log 2>&1
note "fuzz ws features always: rc=$? ($((SECONDS-st))s) $(tail -2 $o/fuzz-ws-features.log | tr '\n' ' ' | cut -c1-400)"
for tool in memcheck racecheck synccheck; do
  st=$SECONDS
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $bin/flashattn-fuzz --small --config $WS --features always --cases 60 --seed 62 > $o/san-fuzz-$tool.log 2>&1
  note "$tool, 60 small fuzz cases with features on the ws configs: rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/san-fuzz-$tool.log | tail -1) $(grep -E 'cases passed|failed' $o/san-fuzz-$tool.log | tail -1 | cut -c1-100)"
done
for tool in memcheck racecheck; do
  st=$SECONDS
  FLASHATTN_TEST_SMALL=1 FLASHATTN_VARLEN_CASES=40 timeout 110 compute-sanitizer --tool $tool --error-exitcode 9 $bin/fuzz--gpu_varlen --include-ignored --nocapture --test-threads=1 > $o/san-varlen-$tool.log 2>&1
  note "$tool, varlen grid + 40 fuzz cases (small): rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/san-varlen-$tool.log | tail -1) $(grep -E '^varlen grid' $o/san-varlen-$tool.log)"
done
cd $o && tar -czf logs.tgz *.log *.json 2>/dev/null; rm -f *.log
