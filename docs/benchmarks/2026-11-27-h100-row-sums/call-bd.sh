#!/usr/bin/env bash
# Call BD: why f16 D128 trails bf16 D128 on the same kernel (identical SASS but for the types):
# the SM clock, power draw and throttle reasons sampled every 100 ms while our kernel runs bf16
# and f16 B2 H16 S8192 D128 (graph replay, 300 samples each, one after the other, LSE stored as
# in the suites). From the checkout root on the GPU host with dist/gpu.txz; results in $OUT/call-bd/.
set -uo pipefail
o=${OUT:-gpu-out}/call-bd; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,power.limit,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv,noheader -lms 100 > "$o/smi.csv" &
smi=$!
for dt in bf16 f16 bf16 f16; do
  echo "$(date +%T.%N | cut -c1-12) start $dt" >> "$o/phases.txt"
  dist/gpu/bin/flashattn-bench run --suite long --shapes "$dt B2 H16/16 S8192x8192 D128" --modes graph --iters 300 \
    --baseline none --out "$o/$dt.json" > "$o/$dt.log" 2>&1
  echo "$(date +%T.%N | cut -c1-12) end $dt" >> "$o/phases.txt"
  grep -E "D128" "$o/$dt.log" | tail -1
  sleep 3
done
kill $smi
cat "$o/phases.txt"
python3 - "$o" <<'PY'
import sys, csv
o = sys.argv[1]
ph = [l.split() for l in open(f"{o}/phases.txt")]
spans = [(ph[i][0], ph[i + 1][0], ph[i][2]) for i in range(0, len(ph), 2)]
rows = [r for r in csv.reader(open(f"{o}/smi.csv"))]
for a, b, dt in spans:
    sel = [r for r in rows if a <= r[0].split()[1][:12] <= b]
    clk = [float(r[1].split()[0]) for r in sel]
    pw = [float(r[2].split()[0]) for r in sel]
    reasons = sorted({r[5].strip() for r in sel})
    if clk:
        print(f"{dt}: {len(sel)} samples, SM clock median {sorted(clk)[len(clk)//2]:.0f} MHz (min {min(clk):.0f}), "
              f"power median {sorted(pw)[len(pw)//2]:.0f} W (max {max(pw):.0f}, limit {sel[0][3].strip()}), throttle {reasons}")
PY
