#!/bin/bash
# session 14, call A: K and V released apart in the ws kernel (split empty barriers), against
# 0ca5fd0's flashattn-bench in the same run; a two-stage d128 ws tile (persistent) forced against
# the dispatcher; then correctness of every ws configuration (fuzz, racecheck, memcheck).
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
mkdir -p dist/old; [ -x dist/old/flashattn-bench ] || { xz -dc dist/old-bench.xz > dist/old/flashattn-bench; chmod +x dist/old/flashattn-bench; }
bin=dist/gpu/bin; old=dist/old/flashattn-bench; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT) archs $(cat dist/gpu/ARCHS) stages: $*"
ws="sm90_f16_d64_m128n128w12s4ws,sm90_bf16_d64_m128n128w12s4ws,sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d128_m128n128w12s3ws,sm90_f16_d256_m128n64w12s2ws,sm90_bf16_d256_m128n64w12s2ws${EXTRA_WS:+,$EXTRA_WS}"
base="docs/benchmarks/baseline-$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' _).json"
ab() { # name, args...
  local name=$1; shift
  for side in old new; do exe=$old; [ $side = new ] && exe=$bin/flashattn-bench
    timeout 150 $exe run "$@" --modes graph --baseline none --label flashattn --out $o/ab-$name-$side.json > $o/ab-$name-$side.log 2>&1 || note "ab $name $side: rc=$?"
  done
  $bin/flashattn-report compare $o/ab-$name-old.json $o/ab-$name-new.json > $o/ab-$name.txt 2>&1
  note "ab $name: exit $? ($(tail -1 $o/ab-$name.txt))"
  awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "    %-40s old %s new %s new/old %s\n", shape, $3, $4, $5}' $o/ab-$name.txt | tee -a $s
}
kab() { # config, args...: named config vs dispatcher, same binary
  local k=$1; shift
  $bin/flashattn-bench run "$@" --modes graph --baseline none --label flashattn --out $o/kab-auto-$k.json > $o/kab-auto-$k.log 2>&1
  $bin/flashattn-bench run "$@" --modes graph --baseline none --label flashattn --kernel $k --out $o/kab-$k.json > $o/kab-$k.log 2>&1
  $bin/flashattn-report compare $o/kab-auto-$k.json $o/kab-$k.json > $o/kab-$k.txt 2>&1
  note "kernel-ab $k (new = named, old = dispatcher):"
  awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "    %-40s auto %s named %s named/auto %s\n", shape, $3, $4, $5}' $o/kab-$k.txt | tee -a $s
}
for stage in "$@"; do st0=$SECONDS; case $stage in
ab)
  ab long --suite long --iters 20
  ab seed1 --suite seed --iters 50
  ab seedws --suite seed --iters 50 --kernel sm90_f16_d64_m128n128w12s4ws ;;
kab)
  for k in ${KAB:-}; do kab $k --suite long --iters 20; done ;;
masks)
  timeout 200 $bin/flashattn-bench run --suite masks --modes graph --iters 20 --baseline none --label flashattn --out $o/masks.json > $o/masks.log 2>&1
  note "masks (ours only): rc=$?"; grep -E "^(bf16|f16)" $o/masks.log | tail -24 | tee -a $s ;;
tests)
  for t in ${TESTS:-fuzz--gpu_grid flashattn--validation fuzz--gpu_varlen}; do
    st=$SECONDS; timeout 150 $bin/$t --include-ignored --nocapture --test-threads=4 > $o/test-$t.log 2>&1; rc=$?
    note "test $t: rc=$rc $(grep -E '^test result' $o/test-$t.log | tail -1) ($((SECONDS-st))s)"
    [ $rc -ne 0 ] && grep -E "FAILED|panicked|failed" $o/test-$t.log | head -12 | sed 's/^/    /' | tee -a $s
  done ;;
fuzz)
  timeout 100 $bin/flashattn-fuzz --config $ws --seconds ${FUZZ_S:-60} --seed 14 --json $o/fuzz-ws.json > $o/fuzz-ws.log 2>&1
  note "fuzz ws configs (default space, ${FUZZ_S:-60} s): rc=$?"; tail -3 $o/fuzz-ws.log | sed 's/^/    /' | tee -a $s
  grep -E "persistent" $o/fuzz-ws.log | head -2 | sed 's/^/    /' | tee -a $s
  timeout 100 $bin/flashattn-fuzz --config $ws --features always --seconds ${FUZZ_S:-60} --seed 15 --json $o/fuzz-ws-features.json > $o/fuzz-ws-features.log 2>&1
  note "fuzz ws configs, features always (${FUZZ_S:-60} s): rc=$?"; tail -2 $o/fuzz-ws-features.log | sed 's/^/    /' | tee -a $s ;;
san)
  for tool in memcheck racecheck synccheck; do
    st=$SECONDS; timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $bin/flashattn-fuzz --max-seqlen 300 --config $ws --cases 60 --seed 7 > $o/san-$tool.log 2>&1
    note "$tool, ws fuzz Sk<=300 up to 64 heads: rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/san-$tool.log | tail -1) $(grep -E 'cases, .* failed' $o/san-$tool.log | tail -1)"
    grep -E "persistent" $o/san-$tool.log | head -2 | sed 's/^/    /' | tee -a $s
  done ;;
sdpa)
  timeout 100 $bin/flashattn-bench run --suite seed --modes graph --iters 30 --out $o/seed.json > $o/seed.log 2>&1
  note "bench seed with SDPA: rc=$?"; grep -E "^f16" $o/seed.log | tail -10 | tee -a $s
  $bin/flashattn-report compare --mode graph "$base" $o/seed.json > $o/gate-seed.txt 2>&1; note "gate seed vs $base: exit $? ($(tail -1 $o/gate-seed.txt))"
  timeout 220 $bin/flashattn-bench run --suite long,varlen --modes graph --iters 30 --out $o/long.json > $o/long.log 2>&1
  note "bench long,varlen with SDPA: rc=$?"; grep -E "^(bf16|f16)" $o/long.log | tail -13 | tee -a $s
  $bin/flashattn-report compare --mode graph "$base" $o/long.json > $o/gate-long.txt 2>&1; note "gate long vs $base: exit $? ($(tail -1 $o/gate-long.txt))" ;;
esac; note "stage $stage: $((SECONDS-st0)) s"; done
mkdir -p $o/r && mv $o/*.json $o/*.md $o/*.csv $o/*.tsv $o/r/ 2>/dev/null
cd $o && tar -czf results.tgz r *.log *.txt 2>/dev/null; rm -rf r *.log
