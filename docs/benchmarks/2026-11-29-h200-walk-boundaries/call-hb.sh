#!/usr/bin/env bash
# Call HB: build 21c9623 (dist/gpu.txz). Its kernels are, SASS for SASS, either 65b7dc1's (every
# walk; the three-consumer one-tile-per-CTA kernels), checked in call GY, or fffe18d's (the
# two-consumer one-tile-per-CTA kernels, back to one part of Q); the launcher now picks Q's box
# by the kernel it launches. The checks of that pairing:
#   1. every GPU test (gpu_fuzz and the grid among them);
#   2. ws_short_last_tiles under memcheck, racecheck and synccheck;
#   3. fuzz --walks on the ten walking tiles, 60 cases (a launch under SMs runs one tile per CTA);
#   4. the seed suite beside PyTorch's SDPA backends.
# From the checkout root on the GPU host; results in $OUT/call-hb/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hb
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=80 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
grep -E "sanitizer" "$o/san/summary.txt" >> "$o/checks.txt"
walks=""
for t in sm90_bf16_d64_m128n128w12s4ws sm90_f16_d64_m128n128w12s4ws sm90_bf16_d64_m192n128w16s4ws \
  sm90_f16_d64_m192n128w16s4ws sm90_bf16_d128_m192n80w16s4ws sm90_f16_d128_m192n80w16s4ws \
  sm90_bf16_d128_m128n176w12s2ws sm90_f16_d128_m128n176w12s2ws sm90_bf16_d128_m128n128w12s3ws \
  sm90_f16_d128_m128n128w12s3ws; do walks="$walks${walks:+,}$t"; done
timeout 60 dist/gpu/bin/flashattn-fuzz --walks --cases 60 --seed 1301 --config "$walks" > "$o/fuzz-walks.log" 2>&1
echo "walks fuzz (60 cases): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-walks.log" | tail -1)" >> "$o/checks.txt"
start=$SECONDS
OUT=$o/bench BENCH_ARGS='run --suite seed --modes graph --iters 50' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
echo "bench: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/bench/summary.txt" "$o/bench-summary.txt" 2>/dev/null
rm -rf "$o/san/work" "$o/tests/work" "$o/bench/work"; rm -f "$o/bench/bench.json"
tar -czf "$o/../hb-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../hb-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name bench-summary.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt" | cut -c1-260; tail -14 "$o/bench-summary.txt"
