#!/usr/bin/env bash
# Call GY: build 65b7dc1 (dist/gpu.txz: Q in one part per consumer, each with its own barriers;
# every walk announced, head dim 128 too; a consumer releases its part at its last Q.K^T) on the
# lent H200, the change's checks:
#   0. the variant probe, every variant compiled (PROBE_EVERY_VARIANT=1 scripts/variant-ab.sh build
#      main=fffe18d rel=/tmp/var/rel new=HEAD; rel = d128-announced.patch with the head-dim-128
#      walks releasing Q at their last Q.K^T, one part), 7 rounds, O bit for bit;
#   1. every GPU test (gpu_fuzz and the grid among them);
#   2. ws_short_last_tiles under memcheck, racecheck, synccheck;
#   3. fuzz --walks on the ten walking tiles (head dims 64 and 128), 120 cases, then 20 under
#      racecheck, 10 under memcheck and 10 under synccheck.
# From the checkout root on the GPU host; results in $OUT/call-gy/.
set -uo pipefail
o=${OUT:-gpu-out}/call-gy
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
s=m192n80w16s4ws
timeout 150 dist/variant-ab/variant-ab 7 "$s bf16 8 16 2048 128" "$s f16 8 16 2048 128" "$s bf16 16 16 1024 128" \
  "$s bf16 4 16 4096 128" "m128n176w12s2ws bf16 8 16 2048 128" "m128n128w12s3ws bf16 8 16 2048 128" \
  "$s bf16 8 16 2048 128 softcap=30" "$s bf16 8 16 2048 128 sinks" "$s bf16 8 16 2048 128 alibi" \
  "$s bf16 8 16 2048 128 lse" "$s bf16 2 16 8192 128" "$s bf16 2 16 8192 128 causal" \
  "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws bf16 16 32 1024 64" "m128n128w12s4ws f16 8 16 512 64" \
  "m192n128w16s4ws bf16 16 32 1024 64 softcap=30" "m192n128w16s4ws f16 8 16 512 64 causal" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/checks.txt"
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
fz=dist/gpu/bin/flashattn-fuzz
timeout 100 $fz --walks --cases 120 --seed 1201 --config "$walks" > "$o/fuzz-walks.log" 2>&1
echo "walks fuzz (120 cases): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-walks.log" | tail -1)" >> "$o/checks.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "racecheck 20 1203" "memcheck 10 1205" "synccheck 10 1207"; do
  set -- $spec
  start=$SECONDS
  timeout 60 "$san" --tool "$1" --error-exitcode 9 $fz --walks --cases "$2" --seed "$3" --config "$walks" \
    > "$o/fuzz-$1.log" 2>&1
  echo "walks fuzz under $1 ($2 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/fuzz-$1.log" | tail -1); $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$1.log" | tail -1)" >> "$o/checks.txt"
  grep -m 40 -E "^=========" "$o/fuzz-$1.log" >> "$o/sanitizer-summary.txt"
done
rm -rf "$o/san/work" "$o/tests/work"
tar -czf "$o/../gy-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../gy-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name variant-ab.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt" | cut -c1-260; grep -E "ratio" "$o/variant-ab.txt" | grep -v "^main" | cut -c1-150
