#!/usr/bin/env bash
# Call IQ: main's pack (0ef31fe; kernels SASS for SASS the last session's) and the candle adapter
# with candle-flash-attn's remaining functions (branch candle-options):
# 1. flashattn-selftest (the README's main job; its timing inputs through TestElement since the
#    last session's review, not yet run on a GPU);
# 2. gpu-run.sh fuzz-sanitizer at its default spaces, "--small" then "--small --walks" (the
#    two-space default, not yet run on a GPU as a step), 60/40/40 cases, 35 s a tool;
# 3. flashattn-candle's GPU tests (the new windowed/alibi/softcap/varlen tests among them), as
#    gpu-run.sh's candle step runs them (not the example: its binary would not fit the carry);
# 4. the three new candle tests under compute-sanitizer memcheck (the adapter hands the launch
#    layer raw views of the ALiBi slopes and of u32 offsets read as int32), 100 s at most.
# Here: scripts/gpu-pack.sh (dist/gpu.txz) and, in a checkout of the branch,
# scripts/candle-gpu-pack.sh, its test binary repacked with xz -9 as dist/candle.txz (13 MB; the
# gzip of both executables, 60 MB, did not fit the 64 MiB carry beside the checkout).
set -uo pipefail
o=${OUT:-gpu-out}/call-iq
mkdir -p "$o"
[ -d dist/candle/bin ] || tar -xJf dist/candle.txz -C dist
OUT="$o" FUZZ_SANITIZER_CASES="60 40 40" SANITIZER_LIMIT=35 scripts/gpu-run.sh selftest fuzz-sanitizer > "$o/gpu-run.log" 2>&1
echo "gpu-run rc=$?"
site=$(ls -d /opt/torch/.venv/lib/python3*/site-packages 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$(ls -d "$site"/nvidia/*/lib 2>/dev/null | tr '\n' ':')${LD_LIBRARY_PATH:-}"
start=$SECONDS
dist/candle/bin/flashattn-candle--gpu --include-ignored --nocapture --test-threads=1 > "$o/candle-tests.log" 2>&1
echo "candle tests: rc=$? $(grep -E '^test result' "$o/candle-tests.log" | tail -1) ($((SECONDS - start)) s)" >> "$o/summary.txt"
grep -E '^(worst|misaligned|offset|backward|alibi on)|FAILED|panicked' "$o/candle-tests.log" | head -20 | sed 's/^/    /' >> "$o/summary.txt"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
start=$SECONDS
timeout 100 "$sanitizer" --tool memcheck --error-exitcode 9 dist/candle/bin/flashattn-candle--gpu --include-ignored \
  --nocapture --test-threads=1 windows_alibi varlen_functions side_tensors > "$o/candle-memcheck.log" 2>&1
echo "candle new tests under memcheck: rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY' "$o/candle-memcheck.log" | tail -1); $(grep -E '^test result' "$o/candle-memcheck.log" | tail -1)" >> "$o/summary.txt"
grep -E '^worst' "$o/candle-memcheck.log" >> "$o/summary.txt"
cat "$o/summary.txt"
