#!/usr/bin/env bash
# Call FI: build 38f27e6 (dist/gpu.txz; call FH's build with consumer 0's warps all done reading
# the merge slot before its finish writes O over it, every hand-over a bar.sync on both sides):
# ws_short_last_tiles under memcheck, racecheck and synccheck (call FH: racecheck hazards and wrong
# results there); 300 fuzz cases on the 192-row head-dim-64 tile, 30 under memcheck and 10 under
# racecheck; a same-run A/B against main's flashattn-bench (dist/main-bench-5468a4c.xz: main's
# kernels; two alternating pairs pooled, the dispatcher choosing) on the head-dim-64 shapes whose
# walks have short tiles and controls; the long suite beside PyTorch's SDPA backends. From the
# checkout root on the GPU host; results in $OUT/call-fi/ (checks.txt first).
set -uo pipefail
o=${OUT:-gpu-out}/call-fi
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=150 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
grep -E "sanitizer" "$o/san/summary.txt" > "$o/checks.txt"
m192=sm90_bf16_d64_m192n128w16s4ws,sm90_f16_d64_m192n128w16s4ws
fz=dist/gpu/bin/flashattn-fuzz
$fz --cases 300 --seed 583 --config "$m192" --max-seqlen 1100 --json "$o/fuzz-m192.json" > "$o/fuzz-m192.log" 2>&1
echo "m192 d64 fuzz (300 cases, <= 1100): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-m192.log" | tail -1)" >> "$o/checks.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "memcheck 30 587" "racecheck 10 589"; do
  set -- $spec
  start=$SECONDS
  timeout 120 "$san" --tool "$1" --error-exitcode 9 $fz --cases "$2" --seed "$3" --config "$m192" --max-seqlen 1100 \
    > "$o/fuzz-$1.log" 2>&1
  echo "m192 d64 fuzz under $1 ($2 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/fuzz-$1.log" | tail -1); $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$1.log" | tail -1)" >> "$o/checks.txt"
done
shapes='bf16 B16 H32/32 S1024x1024 D64,bf16 B4 H32/32 S4096x4096 D64,f16 B4 H32/32 S4096x4096 D64'
shapes+=',f16 B8 H16/16 S512x512 D64,bf16 B2 H16/16 S8192x8192 D128'
for m in softcap30 alibi sinks; do shapes+=",bf16 B16 H32/32 S1024x1024 D64 $m"; done
OUT=$o/ab AB_OLD=dist/main-bench-5468a4c.xz AB_REPS=2 AB_SHAPES="$shapes" \
  AB_ARGS='--suite seed,long,masks --modes graph --iters 30' scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
OUT=$o/bench BENCH_ARGS='run --suite long --modes graph --iters 50' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
rm -rf "$o/ab"; rm -f "$o/bench/bench.json" "$o/fuzz-m192.json"
cat "$o/checks.txt" "$o/ab-pooled.txt"
tail -16 "$o/bench/summary.txt"
