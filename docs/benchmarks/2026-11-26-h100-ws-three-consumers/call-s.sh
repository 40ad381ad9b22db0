#!/usr/bin/env bash
# Call S: the dispatcher's rule on untabled shapes. The sweep suite's head dim 64 shapes (16k
# tokens, H16, S512 ... S16384) are in no table, so the rule picks the tallest tile that gives
# every SM two CTAs, now the 192-row ws tile; timed against the 128-row ws tile forced, two
# alternating repetitions, main's build. From the checkout root on the GPU host; results in
# $OUT/call-s/.
set -uo pipefail
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
o=${OUT:-gpu-out}/call-s; mkdir -p "$o"; s=$o/summary.txt; : > "$s"
note() { echo "$*" | tee -a "$s"; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT) archs $(cat dist/gpu/ARCHS)"
keys=""
for bs in "32 512" "16 1024" "8 2048" "4 4096" "2 8192" "1 16384"; do
  set -- $bs; keys+="${keys:+,}bf16 B$1 H16/16 S$2x$2 D64"
done
for r in 1 2; do
  for k in sm90_bf16_d64_m128n128w12s4ws auto; do
    "$bin/flashattn-bench" run --suite sweep --shapes "$keys" --modes graph --iters 40 --kernel "$k" --baseline none \
      --label flashattn --out "$o/$k-$r.json" > "$o/$k-$r.log" 2>&1 || note "run $k $r: rc=$?"
  done
  "$bin/flashattn-report" compare "$o/sm90_bf16_d64_m128n128w12s4ws-$r.json" "$o/auto-$r.json" > "$o/compare-$r.txt" 2>&1
  note "rep $r (new = dispatcher, old = 128-row ws tile): exit $? ($(tail -1 "$o/compare-$r.txt"))"
  awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "    %-36s 128-row %s dispatcher %s ratio %s\n", shape, $3, $4, $5}' "$o/compare-$r.txt" | tee -a "$s"
done
grep -h "config" "$o"/auto-1.log | head -3 >> "$s"
grep -ho "sm90_bf16_d64_m[0-9a-z]*" "$o"/auto-1.json | sort | uniq -c | sed 's/^/    configs used: /' | tee -a "$s"
