#!/usr/bin/env bash
# Call FG: the variant A/B probe only (dist/variant-ab, PROBE_EVERY_VARIANT=1): main (c66dff8)
# against 1f5169c (a tile whose rows fit one consumer computed by every consumer on every third
# key tile, the partial states merged; the 192-row tiles), on the shapes with such tiles
# (S1024, S1000, S4096 at head dim 64, S16384 at 128 one tile per CTA) and on shapes without
# (f16 B8 H16 S512 D64, S8192 D128 plain and causal), where only the compiled code moves. The
# merged O differs from main's in rounding, so the probe's bitwise check fails on the first
# shapes (rc 1 expected). From the checkout root on the GPU host; results in $OUT/call-fg/.
set -uo pipefail
o=${OUT:-gpu-out}/call-fg
mkdir -p "$o"
dist/variant-ab/variant-ab 11 "m192n128w16s4ws bf16 16 32 1024 64" "m192n128w16s4ws bf16 16 32 1000 64" \
  "m192n128w16s4ws bf16 4 32 4096 64" "m192n128w16s4ws f16 4 32 4096 64" "m192n128w16s4ws f16 8 16 512 64" \
  "m192n80w16s4ws bf16 1 16 16384 128" "m192n80w16s4ws bf16 2 16 8192 128" "m192n80w16s4ws bf16 2 16 8192 128 causal" \
  "m192n128w16s4ws bf16 16 32 1024 64 softcap=30" "m192n128w16s4ws bf16 16 32 1024 64 sinks lse" \
  > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? (1 expected: the merged O differs from main's in rounding)" >> "$o/variant-ab.txt"
cat "$o/variant-ab.txt"
