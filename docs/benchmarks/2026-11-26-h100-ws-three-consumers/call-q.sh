#!/usr/bin/env bash
# Call Q: passive consumers (a consumer whose rows are all past the sequence's end takes its turns
# and releases the buffers without computing: the sixth 192-row tile of 1024 rows has two, the
# third of 512 one) against main's build (AB_OLD: c9cd8d6's flashattn-bench, .xz): the 192-row
# tile forced, two alternating repetitions, and the 128-row tile forced once (it has no passive
# consumer on these shapes: a control for the register allocation), on the head dim 64 shapes
# of the seed, long and masks suites; the tuner on bf16 B16 H32 S1024; the GPU grid, varlen and
# validation tests; the fuzzer on the four head dim 64 ws tiles and on everything; memcheck,
# racecheck and synccheck on those tiles. From the checkout root on the GPU host; results in
# $OUT/call-q.tgz. (Ran on branch ws-passive-consumer, b4084ce.)
set -uo pipefail
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
o=${OUT:-gpu-out}/call-q; mkdir -p "$o"; s=$o/summary.txt; : > "$s"
note() { echo "$*" | tee -a "$s"; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT) archs $(cat dist/gpu/ARCHS)"
old=/tmp/old-bench; xz -dc "${AB_OLD:?the previous build of flashattn-bench, .xz}" > "$old" && chmod +x "$old"
bf16_keys="bf16 B16 H32/32 S1024x1024 D64,bf16 B4 H32/32 S4096x4096 D64"
for m in softcap30 alibi sinks; do bf16_keys+=",bf16 B16 H32/32 S1024x1024 D64 $m,bf16 B4 H32/32 S4096x4096 D64 $m"; done
f16_keys="f16 B4 H32/32 S4096x4096 D64"
for b in "1 H8/8" "2 H8/8" "4 H8/8" "4 H16/16" "8 H16/16"; do
  f16_keys+=",f16 B${b% *} ${b#* } S512x512 D64,f16 B${b% *} ${b#* } S512x512 D64 causal"
done
ws_tiles=""
for dt in bf16 f16; do for t in m128n128w12s4ws m192n128w16s4ws; do ws_tiles+="${ws_tiles:+,}sm90_${dt}_d64_$t"; done; done
st=$SECONDS
for r in 1 2 3; do
  for dt in bf16 f16; do
    keys=${dt}_keys
    t=m192n128w16s4ws; [ $r = 3 ] && t=m128n128w12s4ws
    {
      k=sm90_${dt}_d64_$t
      for side in old new; do
        exe=$old; [ $side = new ] && exe=$bin/flashattn-bench
        timeout 200 "$exe" run --suite seed,long,masks --shapes "${!keys}" --modes graph --kernel "$k" --iters 30 \
          --baseline none --label flashattn --out "$o/ab-$k-$side-$r.json" > "$o/ab-$k-$side-$r.log" 2>&1 || note "ab $k $side $r: rc=$?"
      done
      "$bin/flashattn-report" compare "$o/ab-$k-old-$r.json" "$o/ab-$k-new-$r.json" > "$o/ab-$k-$r.txt" 2>&1
      note "A/B $k rep $r (new = passive consumers): exit $? ($(tail -1 "$o/ab-$k-$r.txt"))"
      awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "    %-44s old %s new %s new/old %s\n", shape, $3, $4, $5}' "$o/ab-$k-$r.txt" | tee -a "$s"
    }
  done
done
note "A/B: $((SECONDS - st)) s"
st=$SECONDS
timeout 200 "$bin/flashattn-bench" tune --suite long,masks --shapes "bf16 B16 H32/32 S1024x1024 D64,bf16 B16 H32/32 S1024x1024 D64 softcap30" \
  --iters 20 --out "$o/dispatch-s1024.tsv" > "$o/tune.log" 2>&1
note "tune, bf16 B16 H32 S1024 D64 (plain, softcap): rc=$? ($((SECONDS - st))s)"; grep -v '^#' "$o/dispatch-s1024.tsv" | cut -f2-10 | sed 's/^/    /' | tee -a "$s"
grep -E "m192|m128n128w12" "$o/tune.log" | grep -E "S1024" | head -8 | sed 's/^/    /' | tee -a "$s"
for t in fuzz--gpu_grid fuzz--gpu_varlen flashattn--validation; do
  st=$SECONDS; timeout 150 "$bin/$t" --include-ignored --nocapture --test-threads=4 > "$o/test-$t.log" 2>&1; rc=$?
  note "test $t: rc=$rc $(grep -E '^test result' "$o/test-$t.log" | tail -1) ($((SECONDS - st))s)"
  grep -E "^(grid|configs)" "$o/test-$t.log" | sed 's/^/    /' | tee -a "$s"
  [ $rc -ne 0 ] && grep -E "FAILED|panicked|failed" "$o/test-$t.log" | head -12 | sed 's/^/    /' | tee -a "$s"
done
st=$SECONDS; timeout 120 "$bin/flashattn-fuzz" --config "$ws_tiles" --seconds 90 --seed 47 --json "$o/fuzz-ws.json" > "$o/fuzz-ws.log" 2>&1
note "fuzz, the head dim 64 ws tiles (90 s): rc=$? ($((SECONDS - st))s)"; tail -2 "$o/fuzz-ws.log" | sed 's/^/    /' | tee -a "$s"
st=$SECONDS; timeout 150 "$bin/flashattn-fuzz" --cases 300 --seed 51 --json "$o/fuzz-all.json" > "$o/fuzz-all.log" 2>&1
note "fuzz, every configuration (300 cases): rc=$? ($((SECONDS - st))s)"; tail -2 "$o/fuzz-all.log" | sed 's/^/    /' | tee -a "$s"
for spec in "memcheck 60" "racecheck 30" "synccheck 30"; do
  set -- $spec; st=$SECONDS
  timeout 150 compute-sanitizer --tool "$1" --error-exitcode 9 "$bin/flashattn-fuzz" --max-seqlen 300 \
    --config "$ws_tiles" --cases "$2" --seed 53 > "$o/san-$1.log" 2>&1
  note "$1, head dim 64 ws tiles, $2 cases Sk<=300: rc=$? ($((SECONDS - st))s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/san-$1.log" | tail -1) $(grep -E 'cases passed|failed' "$o/san-$1.log" | tail -1)"
done
rm -f "$old"
tar -czf "${OUT:-gpu-out}/call-q.tgz" -C "$(dirname "$o")" call-q
