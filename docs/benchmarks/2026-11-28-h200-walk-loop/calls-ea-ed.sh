#!/usr/bin/env bash
# Calls EA-ED ran the variant A/B probe's first version (a prototype of cuda-src/probes/variant_ab.cu
# outside the tree, the same protocol: bitwise O check, graphs of 20 launches replayed 5 times per
# sample, 15 rounds in rotating order; "cfg0..3" there are m128n176w12s2ws, m192n80w16s4ws,
# m192n128w16s4ws, m128n128w12s4ws). This rebuilds their variants with the landed probe, from main
# before the change (d30b9b4) and the edits in edits/ (each a Python script run in a cuda-src tree's
# parent, walk.py with the key-tile limit as its argument), then runs them as those calls did. Here: VARIANTS="base walk walkq" ... build; on the
# GPU host: run.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=docs/benchmarks/2026-11-28-h200-walk-loop
edits_of() {
  case $1 in
  base) ;; walk) echo walk.py ;; walkq) echo walk.py qafter.py ;; walkre) echo walk.py recompute.py ;;
  walkqre) echo walk.py qafter.py recompute.py ;;
  cand) echo qafter.py walk.py:12 ;;  # call EB's cand (commit 988ef95, amended away; it also moved the idle consumer's release)
  candall) echo walk.py qafter.py ;;
  c2) ;;                             # 77c7394 itself (build it from that revision: c2=77c7394)
  c2r) echo reorder.py ;; c2pf) echo qpf.py ;; c2pf128) echo qpf128.py ;;
  esac
}
case "${1:-}" in
build)
  specs=()
  for v in ${VARIANTS:-base walk walkq walkre walkqre}; do
    rev=d30b9b4; case $v in c2*) rev=77c7394 ;; esac
    d=dist/variants/$v; rm -rf "$d"; mkdir -p "$d"; git archive $rev cuda-src | tar -x -C "$d"
    # An edit is FILE or FILE:ARGUMENT.
    for e in $(edits_of $v); do
      arg=(); [[ $e == *:* ]] && arg=("${e#*:}")
      (cd "$d" && python3 "$OLDPWD/$here/edits/${e%%:*}" "${arg[@]}")
    done
    specs+=("$v=$d")
  done
  scripts/variant-ab.sh build "${specs[@]}" ;;
run)
  scripts/variant-ab.sh run 15 "m128n176w12s2ws bf16 8 16 2048 128" "m128n176w12s2ws bf16 16 16 1024 128" \
    "m128n176w12s2ws bf16 32 16 512 128" "m128n176w12s2ws bf16 4 16 4096 128" "m128n176w12s2ws bf16 2 16 8192 128" \
    "m128n176w12s2ws f16 2 16 8192 128" "m192n80w16s4ws bf16 1 16 16384 128" "m192n128w16s4ws f16 8 16 512 64" \
    "m192n128w16s4ws bf16 16 32 1024 64" "m192n128w16s4ws bf16 4 32 4096 64" "m192n128w16s4ws f16 4 32 4096 64" \
    "m128n128w12s4ws f16 4 8 512 64" "m128n128w12s4ws bf16 16 32 1024 64" ;;
*) sed -n '2,8p' "$0" >&2; exit 2 ;;
esac
