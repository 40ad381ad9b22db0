#!/usr/bin/env bash
# Call FC: the variant A/B probe only (dist/variant-ab-fc/variant-ab, built from a probe tile table with two more
# head-dim-64 tiles, the 192-row tile with five and six K/V buffers, and the variants' assertion
# on the ring's size relaxed to six: see the page): this commit's kernels (main), the head-dim-64
# walks storing O from registers with Q released after the key loop (ofr64) or inside it (ofr64q;
# edits/ofr64.py), on the long suite's head-dim-64 shapes and the f16 B8 H16 S512 seed shape.
# From the checkout root on the GPU host; results in $OUT/call-fc/.
set -uo pipefail
o=${OUT:-gpu-out}/call-fc
mkdir -p "$o"
shapes=()
for t in m192n128w16s4ws m192n128w16s5ws m192n128w16s6ws; do
  shapes+=("$t f16 8 16 512 64" "$t bf16 16 32 1024 64" "$t bf16 4 32 4096 64")
done
dist/variant-ab-fc/variant-ab 11 "${shapes[@]}" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/variant-ab.txt"
cat "$o/variant-ab.txt"
