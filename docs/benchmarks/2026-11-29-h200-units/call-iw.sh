#!/usr/bin/env bash
# Call IW: the warp-specialized kernel in units (b901a86: WsSharedMemory, issue_copies, TurnRing;
# scripts/sass-diff.sh against 81819f0: 298 of 324 functions identical, 26 walking kernels
# differing in uniform register numbers only):
# 1. the variant probe, 81819f0's kernels (main) against b901a86's (work), every variant compiled
#    (PROBE_EVERY_VARIANT=1), 10 rounds over shapes that take each schedule: the walks at head
#    dims 64 and 128 (two and three consumers, the look-ahead, split short tiles), a split tail,
#    a causal fold, windowed walks, softcap and ALiBi; O compared bit for bit;
# 2. every GPU test of the pack (scripts/gpu-run.sh tests).
# Here: scripts/gpu-pack.sh (dist/gpu.txz, the tree of b901a86), PROBE_EVERY_VARIANT=1
# scripts/variant-ab.sh build main=81819f0 work=b901a86, carried as dist/iw.txz.
set -uo pipefail
o=${OUT:-gpu-out}/call-iw
mkdir -p "$o"
mkdir -p dist/iw && tar -xJf dist/iw.txz -C dist/iw
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
start=$SECONDS
timeout 240 dist/iw/variant-ab 10 \
  "m192n128w16s4ws f16 8 16 512 64" "m128n128w12s4ws f16 4 8 512 64" "m128n128w12s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 16 32 1024 64" "m192n128w16s4ws bf16 4 32 4096 64" \
  "m192n80w16s4ws bf16 8 16 2048 128" "m128n176w12s2ws bf16 8 16 2048 128" "m128n128w12s3ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 2 16 8192 128 split" "m192n128w16s4ws bf16 4 16 2048 64 causal" \
  "m192n80w16s4ws bf16 4 16 2048 128 window=256,0" "m192n128w16s4ws bf16 8 16 1024 64 softcap=30" \
  "m192n80w16s4ws bf16 8 16 2048 128 alibi" > "$o/variant-ab.log" 2>&1
echo "variant-ab rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
start=$SECONDS
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
echo "tests: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
mkdir -p "$o/tests/x" && tar -xzf "$o/tests/logs.tar.gz" -C "$o/tests/x" 2>/dev/null
grep -rh -E "split tails:|short last tiles:|causal walks:|window walks:|paired|panicked" "$o/tests/x" 2>/dev/null | head -20 >> "$o/checks.txt"
rm -rf "$o/tests/x"
cat "$o/checks.txt"
grep -E "ratio|differ|schedule" "$o/variant-ab.log" | sed 's/  */ /g' | cut -c1-160 | head -40
