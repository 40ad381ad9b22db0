#!/bin/bash
# session 11, call E: the head-dim-256 warp-specialized tile: grid, ws test, fuzz, sanitizers, long suite beside SDPA + gate
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT)"
st=$SECONDS; timeout 60 $bin/fuzz--gpu_grid --include-ignored --nocapture every_config_on_awkward_shapes > $o/grid-awkward.log 2>&1
note "grid awkward: rc=$? ($((SECONDS-st))s) $(grep -E '^(configs|warp-spec)' $o/grid-awkward.log | tr '\n' ' ')"
timeout 30 $bin/flashattn--validation --include-ignored --nocapture warp_specialized > $o/ws-test.log 2>&1
note "ws test: rc=$? $(grep -E '^(test result|warp-spec)' $o/ws-test.log | tr '\n' ' ')"
WS=sm90_f16_d256_m128n64w12s2ws,sm90_bf16_d256_m128n64w12s2ws
st=$SECONDS; timeout 70 $bin/flashattn-fuzz --config $WS --features off --seconds 50 --seed 51 --json $o/fuzz-ws256.json > $o/fuzz-ws256.log 2>&1
note "fuzz d256 ws features off: rc=$? ($((SECONDS-st))s) $(tail -2 $o/fuzz-ws256.log | tr '\n' ' ' | cut -c1-300)"
for tool in memcheck racecheck; do
  st=$SECONDS
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $bin/flashattn-fuzz --small --config $WS --features off --cases 30 --seed 52 > $o/san-$tool.log 2>&1
  note "$tool, 30 small fuzz cases on the d256 ws configs: rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/san-$tool.log | tail -1) $(tail -1 $o/san-$tool.log | cut -c1-80)"
done
st=$SECONDS; timeout 200 $bin/flashattn-bench run --suite long --modes graph --iters 30 --out $o/bench-long.json > $o/bench.log 2>&1
note "bench long: rc=$? ($((SECONDS-st))s)"; grep -E "D256|D128|D64|shape" $o/bench.log | head -14 | tee -a $s
$bin/flashattn-report compare --mode graph docs/benchmarks/2026-11-25-h100-ws/bench.json $o/bench-long.json > $o/gate-vs-ce30fde.txt 2>&1
note "gate vs this session's ce30fde bench (long suite): exit $? ($(tail -1 $o/gate-vs-ce30fde.txt))"
cd $o && tar -czf logs.tgz *.log *.txt 2>/dev/null; rm -f *.log
