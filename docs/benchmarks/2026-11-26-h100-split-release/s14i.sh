#!/bin/bash
# session 14, call I: SM clock, power and temperature sampled every 50 ms beside a long-suite run
# (ours and SDPA's backends), to see whether the p90 tail of the heavy shapes follows the clocks.
cd "$(dirname "$0")/.."
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin; o=$OUT; s=$o/summary.txt; : > $s
note() { echo "$*" | tee -a $s; }
note "device: $(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader) commit $(cat dist/gpu/COMMIT)"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader,nounits -lms 50 > $o/clocks.csv 2>&1 &
smi=$!
date +%s.%N > $o/t0.txt
timeout 250 $bin/flashattn-bench run --suite long --modes graph --iters 30 --out $o/long.json > $o/long.log 2>&1
note "bench long with SDPA: rc=$?"
date +%s.%N > $o/t1.txt
kill $smi
python3 - "$o" <<'PY' | tee -a $s
import sys, csv, collections
o=sys.argv[1]
rows=[r for r in csv.reader(open(o+'/clocks.csv')) if len(r)>=6]
clk=[float(r[1]) for r in rows if r[1].strip().replace('.','').isdigit()]
pw=[float(r[3]) for r in rows if r[3].strip().replace('.','').isdigit()]
reasons=collections.Counter(r[5].strip() for r in rows)
print("samples", len(rows), "sm clock MHz min/median/max", min(clk), sorted(clk)[len(clk)//2], max(clk))
print("power W min/median/max", min(pw), sorted(pw)[len(pw)//2], max(pw))
print("throttle reasons (bitmask: count)", dict(reasons.most_common(6)))
PY
grep -E "^(bf16|f16)" $o/long.log | tee -a $s
cd $o && tar -czf results.tgz clocks.csv long.* t0.txt t1.txt *.log 2>/dev/null; rm -f long.log
