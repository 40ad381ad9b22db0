#!/bin/bash
# session 13, call G: the rest of the GPU test binaries, the feature fuzzer over every
# configuration, synccheck on persistent launches (final build).
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT)"
for t in fuzz--gpu_fuzz fuzz--gpu_decode fuzz--gpu_merge flashattn-sys--flashattn_sys; do
  st=$SECONDS; timeout 150 $bin/$t --include-ignored --nocapture --test-threads=4 > $o/test-$t.log 2>&1; rc=$?
  note "test $t: rc=$rc $(grep -E '^test result' $o/test-$t.log | tail -1) ($((SECONDS-st))s)"
  [ $rc -ne 0 ] && grep -E "FAILED|panicked|failed" $o/test-$t.log | head -12 | sed 's/^/    /' | tee -a $s
done
st=$SECONDS; timeout 150 $bin/flashattn-fuzz --features always --seconds 120 --seed 21 --json $o/fuzz-features.json > $o/fuzz-features.log 2>&1
note "feature fuzzer, every configuration, 120 s: rc=$? ($((SECONDS-st))s)"; tail -2 $o/fuzz-features.log | sed 's/^/    /' | tee -a $s
ws="sm90_f16_d64_m128n128w12s4ws,sm90_bf16_d64_m128n128w12s4ws"
st=$SECONDS; timeout 150 compute-sanitizer --tool synccheck --error-exitcode 9 $bin/flashattn-bench run --suite seed --modes events --iters 2 --baseline none --kernel sm90_f16_d64_m128n128w12s4ws --out $o/san-bench-synccheck.json > $o/san-bench-synccheck.log 2>&1
note "synccheck, seed suite on the d64 ws tile (B4/B8 H16 persistent): rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY' $o/san-bench-synccheck.log | tail -1)"
st=$SECONDS; timeout 100 compute-sanitizer --tool synccheck --error-exitcode 9 $bin/flashattn-fuzz --max-seqlen 300 --config $ws --cases 40 --seed 9 > $o/san-synccheck.log 2>&1
note "synccheck, d64 ws fuzz Sk<=300: rc=$? ($((SECONDS-st))s) $(grep -E 'ERROR SUMMARY' $o/san-synccheck.log | tail -1) $(grep -E 'cases, .* failed' $o/san-synccheck.log | tail -1)"
grep -E "persistent" $o/san-synccheck.log | head -1 | sed 's/^/    /' | tee -a $s
mkdir -p $o/r && mv $o/*.json $o/r/ 2>/dev/null
cd $o && tar -czf results.tgz r *.log 2>/dev/null; rm -rf r *.log
