#!/usr/bin/env bash
# Call CK: whether rising_row_maxima catches a broken softmax. dist/probe-grid.xz is the gpu_grid
# test executable of branch broken-softmax-probe: main's kernels, except that each row keeps its
# first exponent reference forever (both kernels). The test should fail there, by overflow (f16 P
# past 65504, exp2 past f32 at 2^128) or by misweighted tiles. From the checkout root on the GPU
# host; results in $OUT/call-ck/.
set -uo pipefail
out=${OUT:-gpu-out}/call-ck
mkdir -p "$out"
xz -dc dist/probe-grid.xz > "$out/probe-grid" && chmod +x "$out/probe-grid"
"$out/probe-grid" --include-ignored --exact rising_row_maxima > "$out/rising.log" 2>&1
echo "rising_row_maxima on the probe: rc=$?"
grep -E "^rising row maxima|test result" "$out/rising.log"
grep -c "FAIL" "$out/rising.log" | sed 's/^/failing cases listed: /'
grep -m3 "FAIL" "$out/rising.log" | cut -c1-400
rm -f "$out/probe-grid"
