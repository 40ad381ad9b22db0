#!/usr/bin/env bash
# Call KAA: the pack of 951eab6 (as calls KY and KZ) with this branch's H200 table read through
# FLASHATTN_DISPATCH (the pack embeds the previous one; the new rows are call KZ's head-dim-96 ones):
# 1. bench: the seed, long and d96 suites beside PyTorch SDPA's backends (graph p50/p90);
# 2. profile: Nsight Compute on bf16 B8 H16 S2048 at head dims 96 and 128 (the same 192-row 80-key ws tile);
# 3. fuzz: 300 cases of the whole space (every head dim, the table's choices under Auto);
# 4. memcheck, racecheck, synccheck at head dim 96: the small space (every case masked or modified) and the
#    small walk preset, more cases than call KZ.
# Everything lands in $OUT/call-kaa.tgz, the summaries in $OUT/call-kaa-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kaa
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
export FLASHATTN_DISPATCH=$PWD/crates/flashattn/dispatch/nvidia-h200.tsv
OUT=$base/bench BENCH_ARGS='run --suite seed,long,d96 --modes graph --iters 50' scripts/gpu-run.sh bench > /dev/null
OUT=$base/profile PROFILE_SUITES=long,d96 PROFILE_SHAPES='bf16 B8 H16/16 S2048x2048 D96;bf16 B8 H16/16 S2048x2048 D128' \
  scripts/gpu-run.sh profile > /dev/null
OUT=$base/fuzz FUZZ_ARGS="--cases 300 --seed 46" scripts/gpu-run.sh fuzz > /dev/null
OUT=$base/san FUZZ_SANITIZER_ARGS="--small --head-dim 96 --features always;--small --walks --head-dim 96" \
  FUZZ_SANITIZER_CASES='200 100 100' SANITIZER_LIMIT=80 scripts/gpu-run.sh fuzz-sanitizer > /dev/null
for s in bench profile fuzz san; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kaa-summary.txt"
tar -czf "$root/call-kaa.tgz" -C "$root" call-kaa && rm -rf "$base"
grep -vE "^  [a-z]" "$root/call-kaa-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -80
