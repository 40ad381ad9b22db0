#!/bin/bash
# session 11, call D (after 0bad030): sanitizers on every config x awkward shapes, the ws test, ws fuzz cases
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT)"
WS=sm90_f16_d64_m128n128w12s4ws,sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d64_m128n128w12s4ws,sm90_bf16_d128_m128n128w12s3ws
for tool in memcheck synccheck racecheck; do
  st=$SECONDS
  FLASHATTN_TEST_SMALL=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $bin/fuzz--gpu_grid --include-ignored --nocapture --test-threads=1 every_config_on_awkward_shapes > $o/san-$tool.log 2>&1
  note "$tool, every config x awkward shapes: rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/san-$tool.log | tail -1) | $(grep -E '^(configs|warp-spec)' $o/san-$tool.log | tr '\n' ' ')"
  st=$SECONDS
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $bin/flashattn--validation --include-ignored --nocapture warp_specialized > $o/san-ws-$tool.log 2>&1
  note "$tool, warp_specialized_configs_report_the_kernel_that_ran: rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/san-ws-$tool.log | tail -1)"
done
st=$SECONDS
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $bin/flashattn-fuzz --small --config $WS --features off --cases 40 --seed 41 > $o/san-fuzz-ws.log 2>&1
note "racecheck, 40 small fuzz cases on the ws configs: rc=$? ($((SECONDS-st))s) $(grep -E 'RACECHECK SUMMARY' $o/san-fuzz-ws.log | tail -1) $(grep -E 'cases passed|failed' $o/san-fuzz-ws.log | tail -1)"
cd $o && tar -czf logs.tgz *.log; rm -f *.log
