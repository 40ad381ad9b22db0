#!/bin/bash
# session 13, call A: persistent ws kernel (non-causal dense) + causal section on the host.
# A/B against ba8d995's flashattn-bench (seed cool first, seed forced onto the ws tile, long),
# then GPU tests, ws fuzz, and sanitizers on persistent launches.
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
mkdir -p dist/old; [ -x dist/old/flashattn-bench ] || { xz -dc dist/old-bench.xz > dist/old/flashattn-bench; chmod +x dist/old/flashattn-bench; }
bin=dist/gpu/bin; old=dist/old/flashattn-bench; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT) archs $(cat dist/gpu/ARCHS)"
ws="sm90_f16_d64_m128n128w12s4ws,sm90_bf16_d64_m128n128w12s4ws,sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d128_m128n128w12s3ws,sm90_f16_d256_m128n64w12s2ws,sm90_bf16_d256_m128n64w12s2ws"
ab() { # name, args...
  local name=$1; shift
  for side in old new; do exe=$old; [ $side = new ] && exe=$bin/flashattn-bench
    timeout 150 $exe run "$@" --modes graph --baseline none --label flashattn --out $o/ab-$name-$side.json > $o/ab-$name-$side.log 2>&1 || note "ab $name $side: rc=$?"
  done
  $bin/flashattn-report compare $o/ab-$name-old.json $o/ab-$name-new.json > $o/ab-$name.txt 2>&1
  note "ab $name: exit $? ($(tail -1 $o/ab-$name.txt))"
  awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "    %-40s old %s new %s new/old %s\n", shape, $3, $4, $5}' $o/ab-$name.txt | tee -a $s
}
st=$SECONDS
ab seed1 --suite seed --iters 50
ab seed2 --suite seed --iters 50
ab seedws --suite seed --iters 50 --kernel sm90_f16_d64_m128n128w12s4ws
ab long --suite long --iters 20
note "benches: $((SECONDS-st)) s"
for t in fuzz--gpu_grid flashattn--validation fuzz--gpu_varlen; do
  st=$SECONDS; timeout 110 $bin/$t --include-ignored --nocapture --test-threads=4 > $o/test-$t.log 2>&1; rc=$?
  note "test $t: rc=$rc $(grep -E '^test result' $o/test-$t.log | tail -1) ($((SECONDS-st))s)"
  [ $rc -ne 0 ] && grep -E "FAILED|panicked|failed" $o/test-$t.log | head -12 | sed 's/^/    /' | tee -a $s
done
st=$SECONDS; timeout 100 $bin/flashattn-fuzz --config $ws --seconds 80 --seed 13 --json $o/fuzz-ws.json > $o/fuzz-ws.log 2>&1
note "fuzz ws configs (default space, 80 s): rc=$? ($((SECONDS-st))s) $(grep -E '^(cases|passed|failed)' $o/fuzz-ws.log | tr '\n' ' ')"; tail -4 $o/fuzz-ws.log | sed 's/^/    /' | tee -a $s
for tool in memcheck racecheck; do
  st=$SECONDS; timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $bin/flashattn-fuzz --max-seqlen 300 --config $ws --cases 24 --seed 7 > $o/san-$tool.log 2>&1
  note "$tool, ws fuzz Sk<=300 up to 64 heads (persistent): rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/san-$tool.log | tail -1) $(grep -E '^(cases|passed|failed)' $o/san-$tool.log | tr '\n' ' ')"
done
mkdir -p $o/r && mv $o/*.json $o/r/ 2>/dev/null
cd $o && tar -czf results.tgz r *.log *.txt 2>/dev/null; rm -rf r *.log
