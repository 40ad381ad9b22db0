#!/bin/bash
# session 13, call J (experiment): a two-stage d128 ws tile, which has room for an O tile and so
# runs persistent on non-causal calls, against the three-stage one (one tile per CTA) that the
# table picks; same run, twice. Then its correctness: fuzz and racecheck on it.
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT)"
for r in 1 2; do
  $bin/flashattn-bench run --suite long --modes graph --iters 20 --baseline none --label flashattn --out $o/auto-$r.json > $o/auto-$r.log 2>&1
  for k in sm90_bf16_d128_m128n128w12s2ws sm90_f16_d128_m128n128w12s2ws; do
    $bin/flashattn-bench run --suite long --modes graph --iters 20 --baseline none --kernel $k --label flashattn --out $o/$k-$r.json > $o/$k-$r.log 2>&1
    $bin/flashattn-report compare $o/auto-$r.json $o/$k-$r.json > $o/cmp-$k-$r.txt 2>&1
    awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "    %-40s auto %s s2ws %s s2ws/auto %s\n", shape, $3, $4, $5}' $o/cmp-$k-$r.txt | grep D128 | tee -a $s
  done
done
ws2="sm90_bf16_d128_m128n128w12s2ws,sm90_f16_d128_m128n128w12s2ws"
timeout 80 $bin/flashattn-fuzz --config $ws2 --seconds 60 --seed 31 > $o/fuzz-s2ws.log 2>&1
note "fuzz s2ws (60 s): rc=$? $(grep -E 'cases, .* failed' $o/fuzz-s2ws.log | tail -1)"; grep persistent $o/fuzz-s2ws.log | head -1 | tee -a $s
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $bin/flashattn-fuzz --max-seqlen 300 --config $ws2 --cases 40 --seed 5 > $o/san-s2ws.log 2>&1
note "racecheck s2ws: rc=$? $(grep -E 'RACECHECK SUMMARY' $o/san-s2ws.log | tail -1) $(grep -E 'cases, .* failed' $o/san-s2ws.log | tail -1)"; grep persistent $o/san-s2ws.log | head -1 | tee -a $s
mkdir -p $o/r && mv $o/*.json $o/*.md $o/*.csv $o/r/ 2>/dev/null
cd $o && tar -czf results.tgz r *.log *.txt 2>/dev/null; rm -rf r *.log
