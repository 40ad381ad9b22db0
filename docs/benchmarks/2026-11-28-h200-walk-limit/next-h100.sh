#!/usr/bin/env bash
# For the next session lent an H100 (not run yet): what the H200 sessions changed since the H100
# was last measured (d30b9b4): the head-dim-128 walk releasing Q after its key loop (77c7394),
# walking up to 4,096 keys on every tile (5468a4c), short tiles split by keys in the 192-row
# head-dim-64 walk (006564d; its merge's hand-overs are mbarriers), the two-consumer head-dim-64
# tiles' exponentials under their own P.V (the seed suite is tuned too, for the rows on that tile),
# the two-consumer walk's look-ahead (95a1065), the head-dim-64 walks' tiles announced by the producer
# (10419af; 2.5-6% faster on the H200), every walk announced and Q in one part per consumer
# (21c9623; the head-dim-128 walks 1-3% faster on the H200), the last deal's light order for the
# split short tiles (aeb45f4; S4096 D64 1.5-2% faster on the H200), causal launches walked in folds
# (8d32707, 20b7f5c; causal 1k-2k keys 5-14% faster on the H200: part c), sliding windows walked
# (4abec91; the masks suite's window 3% faster on the H200).
# Here first:
#   FLASHATTN_CUDA_ARCHS=90a scripts/gpu-pack.sh                          # dist/gpu.txz of main
#   git worktree add --detach /tmp/old d30b9b4 && (cd /tmp/old && FLASHATTN_CUDA_ARCHS=90a scripts/gpu-pack.sh) \
#     && xz -c /tmp/old/dist/gpu/bin/flashattn-bench > dist/main-bench-d30b9b4.xz
# Then on the H100, from the checkout root, in two calls (a call may run 600 s; each part takes
# about 450 s, measured on the H200 in calls HK, HJ and HE of docs/benchmarks/2026-11-29-h200-retune.md):
#   part a: the GPU tests, a fuzz run, ws_short_last_tiles under the three sanitizers, an A/B
#           against d30b9b4 over the seed, long and masks suites;
#   part b: the tuner over the seed and long suites against the H100 table and the rule, then the
#           seed and long suites beside SDPA with the tuned rows (copy them into
#           crates/flashattn/dispatch/ where both repetitions agree);
#   part c: ws_causal_walks and ws_window_walks under the three sanitizers, an A/B against d30b9b4
#           over the causal suite, the tuner over it and the seed suite's causal shapes, and the
#           causal suite beside SDPA with the tuned rows (about 510 s, from calls HQ, HR, HS and HT
#           of docs/benchmarks/2026-11-29-h200-causal-walk.md; part a's A/B covers the masks
#           suite's window).
#   OUT=$OUT bash docs/benchmarks/2026-11-28-h200-walk-limit/next-h100.sh a    # then ... b, ... c
set -uo pipefail
o=${OUT:-gpu-out}/next-h100
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
part=${1:?part a, b or c}
if [ "$part" = a ]; then
  OUT=$o/tests FUZZ_ARGS='--cases 200 --seed 601' scripts/gpu-run.sh tests fuzz > "$o/tests-run.log" 2>&1
  OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=80 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
  OUT=$o/ab AB_OLD=dist/main-bench-d30b9b4.xz AB_REPS=2 AB_ARGS='--suite seed,long,masks --modes graph --iters 30' \
    scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
  grep -E "^test |fuzz|sanitizer" "$o/tests/summary.txt" "$o/san/summary.txt"
  cat "$o/ab/ab-pooled.txt"
elif [ "$part" = c ]; then
  OUT=$o/san-causal SANITIZE_TEST=ws_causal_walks SANITIZER_LIMIT=80 scripts/gpu-run.sh test-sanitizer > "$o/san-causal-run.log" 2>&1
  OUT=$o/san-window SANITIZE_TEST=ws_window_walks SANITIZER_LIMIT=60 scripts/gpu-run.sh test-sanitizer > "$o/san-window-run.log" 2>&1
  OUT=$o/ab-causal AB_OLD=dist/main-bench-d30b9b4.xz AB_REPS=2 AB_ARGS='--suite causal --modes graph --iters 30' \
    scripts/gpu-run.sh ab > "$o/ab-causal-run.log" 2>&1
  shapes='f16 B1 H8/8 S512x512 D64 causal,f16 B2 H8/8 S512x512 D64 causal,f16 B4 H8/8 S512x512 D64 causal,f16 B4 H16/16 S512x512 D64 causal,f16 B8 H16/16 S512x512 D64 causal'
  for d in 64 128; do
    for bs in "16 1024" "8 2048" "4 4096" "2 8192" "1 16384"; do
      set -- $bs; shapes="$shapes,bf16 B$1 H16/16 S$2x$2 D$d causal"
    done
  done
  OUT=$o/tune-causal TUNE_ARGS='--suite seed,causal --iters 20' TUNE_SHAPES="$shapes" AB_REPS=2 \
    TUNED_AB_ARGS='--suite seed,causal --modes graph --iters 30' BENCH_ARGS='run --suite causal --modes graph --iters 40' \
    scripts/gpu-run.sh tune tuned-ab bench > "$o/tune-causal-run.log" 2>&1
  grep -E "sanitizer" "$o/san-causal/summary.txt" "$o/san-window/summary.txt"
  cat "$o/ab-causal/ab-pooled.txt"
  tail -40 "$o/tune-causal/summary.txt"
else
  # The bench step after tune takes the tuned table (FLASHATTN_DISPATCH) by itself.
  OUT=$o/tune TUNE_ARGS='--suite seed,long --iters 20' AB_REPS=2 TUNED_AB_ARGS='--suite seed,long --modes graph --iters 30' \
    BENCH_ARGS='run --suite seed,long --modes graph --iters 50' scripts/gpu-run.sh tune tuned-ab bench > "$o/tune-run.log" 2>&1
  tail -80 "$o/tune/summary.txt"
fi
