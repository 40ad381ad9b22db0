#!/usr/bin/env bash
# Call KU: the pack of df5436b (as call KT), Nsight Compute (full set) on one launch each of the f16 B4 H16 S512 D64
# call plain, with softcap 30 and with ALiBi (the dispatcher's m128n128w8s2 tile: its dense and score-modifier
# kernels): how busy the MUFU (XU) pipe, the FMA pipes and the tensor cores are, to check the page's account of what
# softcap costs. Per shape: the raw metrics whose names mention a pipe, duration, registers and occupancy.
# Everything lands in $OUT/call-ku.tgz, the summary in $OUT/call-ku-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-ku
mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist && echo df5436b > dist/gpu/COMMIT
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
s='f16 B4 H16/16 S512x512 D64'
i=0
for shape in "$s" "$s softcap30" "$s alibi"; do
  rep="$base/p$i"
  "$ncu" --set full --import-source no --cache-control none --clock-control none \
    --kernel-name regex:'ws_kernel|fwd_kernel|fwd_tma_kernel' --launch-skip 5 --launch-count 1 -f -o "$rep" \
    dist/gpu/bin/flashattn-bench run --suite seed,short --shapes "$shape" --modes events --iters 5 --baseline none \
    --out "$base/p$i-bench.json" > "$base/p$i.log" 2>&1
  echo "== $shape: ncu rc=$?" >> "$root/call-ku-summary.txt"
  "$ncu" --import "$rep.ncu-rep" --page raw --csv > "$base/p$i-raw.csv" 2>&1
  "$ncu" --import "$rep.ncu-rep" --page details --print-details all > "$base/p$i-details.txt" 2>&1
  python3 - "$base/p$i-raw.csv" >> "$root/call-ku-summary.txt" <<'PY'
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
head = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
names, units, values = rows[head], rows[head + 1], rows[head + 2]
want = re.compile(r"(pipe_(xu|fma|fmaheavy|fmalite|alu|tensor|shared|lsu|uniform)|gpu__time_duration.sum|"
                  r"launch__registers_per_thread|sm__warps_active.avg.pct|launch__occupancy_limit|Kernel Name|"
                  r"sm__inst_executed.sum$|smsp__inst_executed.sum$|sm__throughput.avg.pct)")
for n, u, v in zip(names, units, values):
    if want.search(n) and ("pct" in n or "sum" in n or "Name" in n or "registers" in n or "limit" in n):
        print(f"  {n} = {v} {u}")
PY
  rm -f "$rep.ncu-rep"; xz -9 -f "$base/p$i-raw.csv"
  i=$((i + 1))
done
tar -czf "$root/call-ku.tgz" -C "$root" call-ku && rm -rf "$base"
cut -c1-160 "$root/call-ku-summary.txt" | head -150
