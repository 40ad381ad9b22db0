#!/bin/bash
# session 12, call D (final build): seed first (cool), every GPU test, sanitizers, masks/long/varlen beside SDPA, gates
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
for t in $bin/*--*; do
  n=$(basename $t); st=$SECONDS
  timeout 150 $t --include-ignored --nocapture --test-threads=4 > $o/test-$n.log 2>&1; rc=$?
  note "test $n: rc=$rc $(grep -E '^test result' $o/test-$n.log | tail -1) ($((SECONDS-st))s)"
  grep -E "^(grid|configs|warp-spec|variants|varlen|masks)" $o/test-$n.log | sed 's/^/    /' | tee -a $s
  [ $rc -ne 0 ] && grep -E "FAILED|panicked|failed" $o/test-$n.log | head -12 | sed 's/^/    /' | tee -a $s
done
st=$SECONDS; FLASHATTN_TEST_SMALL=1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $bin/fuzz--gpu_grid --include-ignored --nocapture --test-threads=1 every_config_on_awkward_shapes masks_and_score_mods_on_every_config > $o/san-grid-memcheck.log 2>&1
note "memcheck, grid awkward + masks (small): rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY' $o/san-grid-memcheck.log | tail -1) | $(grep -E '^(configs|masks)' $o/san-grid-memcheck.log | tr '\n' ' ' | cut -c1-200)"
st=$SECONDS; FLASHATTN_TEST_SMALL=1 timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $bin/fuzz--gpu_grid --include-ignored --nocapture --test-threads=1 every_config_on_awkward_shapes > $o/san-grid-racecheck.log 2>&1
note "racecheck, grid awkward (small): rc=$? ($((SECONDS-st))s) $(grep -E 'RACECHECK SUMMARY' $o/san-grid-racecheck.log | tail -1)"
WS=sm90_f16_d64_m128n128w12s4ws,sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d64_m128n128w12s4ws,sm90_bf16_d128_m128n128w12s3ws,sm90_f16_d256_m128n64w12s2ws,sm90_bf16_d256_m128n64w12s2ws
for tool in racecheck synccheck; do
  st=$SECONDS; timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $bin/flashattn-fuzz --small --config $WS --features mixed --cases 60 --seed 72 > $o/san-fuzz-$tool.log 2>&1
  note "$tool, 60 small fuzz cases (features mixed) on the ws configs: rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/san-fuzz-$tool.log | tail -1) $(grep -E 'cases passed|failed' $o/san-fuzz-$tool.log | tail -1 | cut -c1-80)"
done
st=$SECONDS; FLASHATTN_TEST_SMALL=1 FLASHATTN_VARLEN_CASES=40 timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 $bin/fuzz--gpu_varlen --include-ignored --test-threads=1 > $o/san-varlen-memcheck.log 2>&1
note "memcheck, varlen grid + 40 fuzz cases (small): rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY' $o/san-varlen-memcheck.log | tail -1)"
st=$SECONDS; timeout 240 $bin/flashattn-bench run --suite masks,long,varlen --modes graph --iters 20 --out $o/bench.json > $o/bench.log 2>&1
note "bench masks,long,varlen with SDPA: rc=$? ($((SECONDS-st))s)"; grep -E "^(bf16|f16)" $o/bench.log | tail -38 | tee -a $s
$bin/flashattn-report compare --mode graph "$base" $o/bench.json > $o/gate.txt 2>&1
note "gate long vs $base: exit $? ($(tail -1 $o/gate.txt))"
$bin/flashattn-report compare --mode graph dist/ref/s12b-bench.json $o/bench.json > $o/gate-vs-s12b.txt 2>&1
note "gate masks,long,varlen vs call B (ws variants, before the tile order): exit $? ($(tail -1 $o/gate-vs-s12b.txt))"
mkdir -p $o/r && mv $o/*.json $o/*.csv $o/*.md $o/r/ 2>/dev/null
cd $o && tar -czf results.tgz r *.log *.txt 2>/dev/null; rm -rf r *.log
