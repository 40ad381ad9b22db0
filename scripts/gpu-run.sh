#!/usr/bin/env bash
# Runs on the GPU host, from the checkout root, over what scripts/gpu-pack.sh packed.
# Steps (default: all): tests sanitizer fuzz bench. Full logs go to $OUT (default ./gpu-out);
# a short table is printed last.
#
#   scripts/gpu-run.sh tests sanitizer
set -uo pipefail
cd "$(dirname "$0")/.."
bin=dist/gpu/bin
out=${OUT:-gpu-out}
mkdir -p "$out"
steps=${*:-tests sanitizer fuzz bench}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
summary="$out/summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader > "$out/device.txt" 2>&1
note "device: $(cat "$out/device.txt")  commit: $(cat dist/gpu/COMMIT)  archs: $(cat dist/gpu/ARCHS)"

for step in $steps; do
  case $step in
    tests)
      for t in "$bin"/*--*; do
        name=$(basename "$t")
        start=$SECONDS
        "$t" --include-ignored --nocapture --test-threads=4 > "$out/test-$name.log" 2>&1
        rc=$?
        secs=$((SECONDS - start))
        note "test $name: rc=$rc $(grep -E '^test result' "$out/test-$name.log" | tail -1) (${secs}s)"
        grep -E "^(grid|configs|worst)" "$out/test-$name.log" | sed 's/^/    /' | tee -a "$summary"
        [ $rc -ne 0 ] && grep -E "FAILED|panicked|fail" "$out/test-$name.log" | head -20 | sed 's/^/    /' | tee -a "$summary"
      done ;;
    sanitizer)
      grid=$(ls "$bin"/flashattn-fuzz--gpu_grid)
      for tool in memcheck racecheck synccheck; do
        FLASHATTN_TEST_SMALL=1 "$sanitizer" --tool $tool --error-exitcode 9 "$grid" --include-ignored --test-threads=1 every_config_on_awkward_shapes \
          > "$out/sanitizer-$tool.log" 2>&1
        note "sanitizer $tool: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool.log" | tail -1)"
      done ;;
    fuzz)
      if [ -x "$bin/flashattn-fuzz" ]; then
        "$bin/flashattn-fuzz" ${FUZZ_ARGS:---cases 2000 --seed 1} > "$out/fuzz.log" 2>&1
        note "fuzz: rc=$?"; tail -25 "$out/fuzz.log" | tee -a "$summary"
      fi ;;
    bench)
      if [ -x "$bin/flashattn-bench" ]; then
        "$bin/flashattn-bench" ${BENCH_ARGS:-run --suite seed,long --out $out/bench.json} > "$out/bench.log" 2>&1
        note "bench: rc=$?"; tail -40 "$out/bench.log" | tee -a "$summary"
      fi ;;
    selftest)
      "$bin/flashattn-selftest" 2>&1 | tee "$out/selftest.log" | tee -a "$summary" ;;
  esac
done
# Only a few files come back from a lent GPU host: bundle the logs.
tar -czf "$out/logs.tar.gz" -C "$out" --exclude logs.tar.gz --exclude '*.json' . 2>/dev/null
echo "==== summary ===="
cat "$summary"
