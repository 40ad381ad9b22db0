#!/usr/bin/env bash
# Call IV: flashattn-candle's GPU tests on be9954b (the review: LSE through run_with_lse, packed
# row counts from the layouts, the wrappers building their Call, shared test drivers), and the three
# new tests under compute-sanitizer memcheck. dist/candle.txz as in call IQ (the branch's HEAD).
set -uo pipefail
o=${OUT:-gpu-out}/call-iv
mkdir -p "$o"
[ -d dist/candle/bin ] || tar -xJf dist/candle.txz -C dist
site=$(ls -d /opt/torch/.venv/lib/python3*/site-packages 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$(ls -d "$site"/nvidia/*/lib 2>/dev/null | tr '\n' ':')${LD_LIBRARY_PATH:-}"
echo "candle pack $(cat dist/candle/COMMIT)" > "$o/summary.txt"
start=$SECONDS
dist/candle/bin/flashattn-candle--gpu --include-ignored --nocapture --test-threads=1 > "$o/candle-tests.log" 2>&1
echo "candle tests: rc=$? $(grep -E '^test result' "$o/candle-tests.log" | tail -1) ($((SECONDS - start)) s)" >> "$o/summary.txt"
grep -E '^(worst|misaligned|offset|backward|alibi on)|FAILED|panicked' "$o/candle-tests.log" | head -20 | sed 's/^/    /' >> "$o/summary.txt"
grep -o "via [a-z_]*" "$o/candle-tests.log" | sort | uniq -c >> "$o/summary.txt"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
start=$SECONDS
timeout 100 "$sanitizer" --tool memcheck --error-exitcode 9 dist/candle/bin/flashattn-candle--gpu --include-ignored \
  --nocapture --test-threads=1 windows_alibi varlen_functions side_tensors > "$o/candle-memcheck.log" 2>&1
echo "candle new tests under memcheck: rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY' "$o/candle-memcheck.log" | tail -1); $(grep -E '^test result' "$o/candle-memcheck.log" | tail -1)" >> "$o/summary.txt"
grep -E '^worst' "$o/candle-memcheck.log" >> "$o/summary.txt"
cat "$o/summary.txt"
