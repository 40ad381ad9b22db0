#!/usr/bin/env bash
# Call KAD: call KAC's fuzz and walk-sanitizer steps again with --head-dim 96 (the walk and split presets draw
# head dims 64 and 128 as well, which the head-dim-96 probe build does not have: KAC's runs stopped at once).
set -u
root=${OUT:-gpu-out}; base=$root/call-kad
rm -rf dist/gpu
tar -xJf dist/gpu96.txz -C dist
new=sm90_bf16_d96_m192n96w16s3ws,sm90_f16_d96_m192n96w16s3ws
OUT=$base/fuzz FUZZ_ARGS="--walks --head-dim 96 --config $new --cases 60 --seed 48;--splits --head-dim 96 --config $new --cases 24 --seed 49" \
  scripts/gpu-run.sh fuzz > /dev/null
OUT=$base/san FUZZ_SANITIZER_ARGS="--small --walks --head-dim 96 --config $new" \
  FUZZ_SANITIZER_CASES='60 20 30' SANITIZER_LIMIT=40 scripts/gpu-run.sh fuzz-sanitizer > /dev/null
for s in fuzz san; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kad-summary.txt"
tar -czf "$root/call-kad.tgz" -C "$root" call-kad && rm -rf "$base"
grep -vE "^  [a-z]" "$root/call-kad-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -30
