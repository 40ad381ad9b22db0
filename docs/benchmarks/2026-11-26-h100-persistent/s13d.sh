#!/bin/bash
# session 13, call H: the long suite's d64 shapes on the persistent d64 ws tile against the
# dispatcher's choice (same run), to see whether the tuned table should move.
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT)"
for r in 1 2; do
  $bin/flashattn-bench run --suite long --modes graph --iters 30 --baseline none --label flashattn --out $o/auto-$r.json > $o/auto-$r.log 2>&1
  for k in sm90_bf16_d64_m128n128w12s4ws sm90_f16_d64_m128n128w12s4ws; do
    $bin/flashattn-bench run --suite long --modes graph --iters 30 --baseline none --kernel $k --label flashattn --out $o/$k-$r.json > $o/$k-$r.log 2>&1
    $bin/flashattn-report compare $o/auto-$r.json $o/$k-$r.json > $o/cmp-$k-$r.txt 2>&1
    awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "    %-40s auto %s ws %s ws/auto %s\n", shape, $3, $4, $5}' $o/cmp-$k-$r.txt | grep D64 | tee -a $s
  done
done
grep -h "D64" $o/auto-1.log | head -4 | sed 's/^/    auto: /' | tee -a $s
mkdir -p $o/r && mv $o/*.json $o/*.md $o/*.csv $o/r/ 2>/dev/null
cd $o && tar -czf results.tgz r *.log *.txt 2>/dev/null; rm -rf r *.log
