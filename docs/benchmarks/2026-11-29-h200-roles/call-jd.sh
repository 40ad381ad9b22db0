#!/usr/bin/env bash
# Call JD: abda236 (ff8138d with O's 16-byte stores indexing threads as the kernel did, which
# took the three-consumer head-dim-64 walks' spill away):
# 1. the variant probe, 7e5aba4's kernels (main) against abda236's (work), every variant, 30 rounds
#    over call JC's shapes, O compared bit for bit;
# 2. flashattn-bench A/B against 7a1e1aa's build (7e5aba4's kernels), seed/long/sweep, pooled;
# 3. the seed and long suites beside PyTorch's SDPA backends;
# 4. every GPU test of the pack (gpu_varlen among them, which call JB's limit cut on 7a1e1aa).
# Here: scripts/gpu-pack.sh (dist/gpu.txz); PROBE_EVERY_VARIANT=1 scripts/variant-ab.sh build
# main=7e5aba4 work=abda236, carried as dist/jd.txz; 7a1e1aa's flashattn-bench as dist/old-bench.xz.
set -uo pipefail
o=${OUT:-gpu-out}/call-jd
mkdir -p "$o"
mkdir -p dist/jd && tar -xJf dist/jd.txz -C dist/jd
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
timeout 150 dist/jd/variant-ab 30 \
  "m192n128w16s4ws f16 8 16 512 64" "m128n128w12s4ws f16 4 8 512 64" "m128n128w12s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 16 32 1024 64" "m192n128w16s4ws bf16 4 32 4096 64" \
  "m192n80w16s4ws bf16 8 16 2048 128" "m128n176w12s2ws bf16 8 16 2048 128" "m128n128w12s3ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 2 16 8192 128 split" "m192n128w16s4ws bf16 4 16 2048 64 causal" \
  "m192n80w16s4ws bf16 4 16 2048 128 window=256,0" "m192n128w16s4ws bf16 8 16 1024 64 softcap=30" \
  "m192n80w16s4ws bf16 8 16 2048 128 alibi" "m192n128w16s4ws f16 8 16 512 64 causal" > "$o/variant-ab.log" 2>&1
echo "variant-ab rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
start=$SECONDS
OUT=$o/ab AB_OLD=dist/old-bench.xz AB_REPS=2 AB_ARGS='--suite seed,long,sweep --modes graph --iters 30' \
  scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
start=$SECONDS
OUT=$o/bench BENCH_ARGS='run --suite seed,long --modes graph --iters 50' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
echo "bench: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/bench/summary.txt" "$o/bench-summary.txt" 2>/dev/null
start=$SECONDS
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
echo "tests: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
mkdir -p "$o/tests/x" && tar -xzf "$o/tests/logs.tar.gz" -C "$o/tests/x" 2>/dev/null
grep -rh -E "split tails:|short last tiles:|causal walks:|window walks:|panicked" "$o/tests/x" 2>/dev/null | head -20 >> "$o/checks.txt"
rm -rf "$o/tests/x"
rm -rf "$o/ab/work" "$o/bench/work"; rm -f "$o/bench/bench.json"
cp "$o/tests/summary.txt" "$o/tests-summary.txt" 2>/dev/null
tar -czf "$o/../jd-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../jd-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name ab-pooled.txt ! -name bench-summary.txt ! -name variant-ab.log ! -name tests-summary.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"; cat "$o/ab-pooled.txt" | tail -32; tail -24 "$o/bench-summary.txt"
grep -E "^work" "$o/variant-ab.log" | sed 's/  */ /g' | cut -c1-160
