#!/bin/bash
# session 11, call C: memcheck of the ws harness (launch errors?), bench seed+long with SDPA, regression gate
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT)"
timeout 100 compute-sanitizer --tool memcheck dist/ws/ws_test small > $o/ws-memcheck.log 2>&1
note "ws harness memcheck: rc=$?"; grep -v "Host Frame\|Saved host\|^=========\s*$" $o/ws-memcheck.log | grep -E "ws d128|opt-in|launch [0-9]: status [^0]|Program hit|ERROR SUMMARY|failed" | head -12 | tee -a $s
grep -B3 "Program hit" $o/ws-memcheck.log | grep -E "launch|D128|D64" | head -6 | tee -a $s
st=$SECONDS; timeout 420 $bin/flashattn-bench run --suite seed,long --iters 50 --out $o/bench.json > $o/bench.log 2>&1
note "bench: rc=$? ($((SECONDS-st))s)"; tail -45 $o/bench.log | tee -a $s
base="docs/benchmarks/baseline-$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' _).json"
$bin/flashattn-report compare --mode graph "$base" $o/bench.json > $o/gate.txt 2>&1
note "regression gate vs $base: exit $? ($(tail -1 $o/gate.txt))"
cd $o && tar -czf logs.tgz *.log *.txt 2>/dev/null; rm -f *.log
