#!/bin/bash
# session 11, call B: grid + sanitizers with the fixed grid test, tune seed and long
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
xz -dc dist/extra/fuzz--gpu_grid.xz > dist/gpu/bin/fuzz--gpu_grid; chmod +x dist/gpu/bin/fuzz--gpu_grid
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
st=$SECONDS; timeout 120 $bin/fuzz--gpu_grid --include-ignored --nocapture every_config_on_awkward_shapes > $o/grid-awkward.log 2>&1
note "grid awkward: rc=$? ($((SECONDS-st))s) $(grep -E '^(configs|warp-spec)' $o/grid-awkward.log | tr '\n' ' ')"
for tool in memcheck racecheck; do
  st=$SECONDS
  FLASHATTN_TEST_SMALL=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $bin/fuzz--gpu_grid --include-ignored --nocapture --test-threads=1 every_config_on_awkward_shapes > $o/san-$tool.log 2>&1
  note "sanitizer $tool awkward shapes every config: rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $o/san-$tool.log | tail -1) $(grep -E '^warp-spec' $o/san-$tool.log)"
done
st=$SECONDS; timeout 100 $bin/flashattn-bench tune --suite seed --iters 30 --out $o/seed.tsv > $o/tune-seed.log 2>&1
note "tune seed: rc=$? ($((SECONDS-st))s)"
st=$SECONDS; timeout 230 $bin/flashattn-bench tune --suite long --iters 10 --out $o/long.tsv > $o/tune-long.log 2>&1
note "tune long: rc=$? ($((SECONDS-st))s)"
cat $o/seed.tsv > $o/dispatch.tsv; grep -v '^#' $o/long.tsv >> $o/dispatch.tsv
grep -v '^#' $o/dispatch.tsv | cut -f2-10 | tee -a $s
cd $o && tar -czf logs.tgz *.log; rm -f *.log
