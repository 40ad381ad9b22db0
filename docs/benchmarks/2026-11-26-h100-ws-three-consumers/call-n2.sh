#!/usr/bin/env bash
# Call N2 (call N again, its correctness half: N ran on a truncated pack, which held the benches but
# not the test executables), plus the tuner over the head dim 64 seed and long shapes.
# Call N: the warp-specialized kernel with three consumer warpgroups (192-row tile, head dim 64)
# against the dispatcher's choice (the 128-row ws tile or the seed table's rows) on every head
# dim 64 shape of the seed, long and masks suites, two alternating repetitions; the long and
# masks head dim 64 shapes beside SDPA with the new tile forced; the GPU grid, varlen and
# validation tests; the fuzzer on the new tiles and on everything; memcheck, racecheck and
# synccheck on the new tiles (persistent launches included). From the checkout root on the GPU
# host; results in $OUT/call-n2.tgz.
set -uo pipefail
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
o=${OUT:-gpu-out}/call-n2; mkdir -p "$o"; s=$o/summary.txt; : > "$s"
note() { echo "$*" | tee -a "$s"; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT) archs $(cat dist/gpu/ARCHS)"
bf16_new=sm90_bf16_d64_m192n128w16s4ws
f16_new=sm90_f16_d64_m192n128w16s4ws
bf16_keys="bf16 B16 H32/32 S1024x1024 D64,bf16 B4 H32/32 S4096x4096 D64"
for m in softcap30 alibi sinks; do bf16_keys+=",bf16 B16 H32/32 S1024x1024 D64 $m,bf16 B4 H32/32 S4096x4096 D64 $m"; done
f16_keys="f16 B4 H32/32 S4096x4096 D64"
for b in "1 H8/8" "2 H8/8" "4 H8/8" "4 H16/16" "8 H16/16"; do
  f16_keys+=",f16 B${b% *} ${b#* } S512x512 D64,f16 B${b% *} ${b#* } S512x512 D64 causal"
done
for t in fuzz--gpu_grid fuzz--gpu_varlen flashattn--validation; do
  st=$SECONDS; timeout 150 "$bin/$t" --include-ignored --nocapture --test-threads=4 > "$o/test-$t.log" 2>&1; rc=$?
  note "test $t: rc=$rc $(grep -E '^test result' "$o/test-$t.log" | tail -1) ($((SECONDS - st))s)"
  grep -E "^(grid|configs|worst)" "$o/test-$t.log" | sed 's/^/    /' | tee -a "$s"
  [ $rc -ne 0 ] && grep -E "FAILED|panicked|failed" "$o/test-$t.log" | head -12 | sed 's/^/    /' | tee -a "$s"
done
st=$SECONDS; timeout 120 "$bin/flashattn-fuzz" --config "$bf16_new,$f16_new" --seconds 90 --seed 23 --json "$o/fuzz-new.json" > "$o/fuzz-new.log" 2>&1
note "fuzz, the 192-row tiles (90 s): rc=$? ($((SECONDS - st))s)"; tail -5 "$o/fuzz-new.log" | sed 's/^/    /' | tee -a "$s"
st=$SECONDS; timeout 150 "$bin/flashattn-fuzz" --cases 400 --seed 29 --json "$o/fuzz-all.json" > "$o/fuzz-all.log" 2>&1
note "fuzz, every configuration (400 cases): rc=$? ($((SECONDS - st))s)"; tail -5 "$o/fuzz-all.log" | sed 's/^/    /' | tee -a "$s"
for spec in "memcheck 40" "racecheck 24" "synccheck 24"; do
  set -- $spec; st=$SECONDS
  timeout 150 compute-sanitizer --tool "$1" --error-exitcode 9 "$bin/flashattn-fuzz" --max-seqlen 300 \
    --config "$bf16_new,$f16_new" --cases "$2" --seed 31 > "$o/san-$1.log" 2>&1
  note "$1, 192-row tiles, $2 cases Sk<=300: rc=$? ($((SECONDS - st))s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/san-$1.log" | tail -1) $(grep -E '^(cases|passed|failed)' "$o/san-$1.log" | tr '\n' ' ')"
done
st=$SECONDS
timeout 300 "$bin/flashattn-bench" tune --suite seed,long --shapes "$f16_keys,bf16 B16 H32/32 S1024x1024 D64,bf16 B4 H32/32 S4096x4096 D64" \
  --iters 20 --out "$o/dispatch-d64.tsv" > "$o/tune.log" 2>&1
note "tune, head dim 64 seed and long shapes: rc=$? ($((SECONDS - st))s)"; grep -v '^#' "$o/dispatch-d64.tsv" | cut -f2-10 | sed 's/^/    /' | tee -a "$s"
tar -czf "${OUT:-gpu-out}/call-n2.tgz" -C "$(dirname "$o")" call-n2
