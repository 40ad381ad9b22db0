#!/usr/bin/env bash
# The variant A/B probe (cuda-src/probes/variant_ab.cu): source variants of the warp-specialized
# kernel timed against each other in one process, their O compared bit for bit.
#
# Here (no GPU): build one executable from variants, each NAME=SOURCE, where SOURCE is a git
# revision or a directory holding a cuda-src tree (an edited copy; "." is this checkout's working
# tree), either followed by patches to apply onto it (SOURCE+A.patch+B.patch: a measured idea kept
# as a patch under docs/benchmarks is probed again without a copy by hand); the first variant is
# the one the others are compared with. NAME must be a C identifier.
#   scripts/variant-ab.sh build main=HEAD work=.
#   scripts/variant-ab.sh build main=HEAD ring=HEAD+docs/benchmarks/2026-11-29-h200-walk-boundaries/ring.patch
# writes dist/variant-ab/variant-ab (about a minute a variant, nvcc in parallel; PROBE_EVERY_VARIANT=1
# also compiles the general and score-modifier kernels, for windows, sinks, softcap and ALiBi: three
# times as long; PROBE_FWD_TILES=1 adds tiles of fwd_kernel.cuh: the one-warpgroup ones the seed
# shapes run, m64n64w4s2 and the like, the two-warpgroup ones, head dims 128 and 256). The kernel sources come from each
# variant; the probe's own files (cuda-src/probes) from this checkout.
# On the GPU host (no Rust, no nvcc), from the checkout root: ROUNDS rounds per shape, each shape
# "TILE DTYPE BATCH HEADS SEQLEN HEAD_DIM [MODS]" with TILE one of cuda-src/probes/probe_tiles.cuh
# and MODS words of causal, window=LEFT,RIGHT, softcap=CAP, alibi, sinks, lse, keys=N (N keys, not SEQLEN):
#   scripts/variant-ab.sh run 15 "m128n176w12s2ws bf16 8 16 2048 128" "m192n128w16s4ws f16 8 16 512 64 causal"
# exits 1 if some variant's O differs from the first's.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=dist/variant-ab
case "${1:-}" in
build)
  shift
  [ $# -ge 2 ] || { echo "build needs two variants or more: NAME=SOURCE ..." >&2; exit 2; }
  source scripts/setup.sh
  set +u
  start=$(date +%s)
  rm -rf "$dir" && mkdir -p "$dir/gen/probes"
  names=()
  for spec in "$@"; do
    name=${spec%%=*} source=${spec#*=}
    [[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || { echo "variant name '$name' is not a C identifier" >&2; exit 2; }
    tree="$dir/src/$name"
    mkdir -p "$tree"
    # SOURCE is a tree, or a revision with patches to apply onto it: REV+A.patch+B.patch.
    IFS=+ read -r -a parts <<<"$source"
    base=${parts[0]}
    if [ -d "$base/cuda-src" ]; then
      cp -r "$base/cuda-src" "$tree/"
    else
      git archive "$base" cuda-src | tar -x -C "$tree" || { echo "variant $name: no revision '$base'" >&2; exit 2; }
    fi
    for patch_file in "${parts[@]:1}"; do
      # The patches under docs/benchmarks are `diff -ru` output whose paths end in cuda-src/...
      # after one leading directory or none.
      applied=0
      for strip in 1 0; do
        if patch -s -d "$tree" -p"$strip" --dry-run <"$patch_file" >/dev/null 2>&1; then
          # (patch notes the absolute paths of the diffs' old sides, which it does not use)
          patch -s -d "$tree" -p"$strip" <"$patch_file" 2> >(grep -v 'potentially dangerous' >&2) && applied=1
          break
        fi
      done
      [ $applied = 1 ] || { echo "variant $name: $patch_file does not apply onto $base" >&2; exit 2; }
    done
    cp cuda-src/probes/*.cuh cuda-src/probes/variant_entry.cu "$tree/cuda-src/probes/"
    # The probe launches through common/features.cuh's variant_for (flashattn_fwd's rule), which
    # trees from before 2189fdc lack: this checkout's definition is added to theirs (host code
    # only; their kernels are untouched).
    if ! grep -q 'variant_for' "$tree/cuda-src/common/features.cuh"; then
      python3 - "$tree/cuda-src/common/features.cuh" cuda-src/common/features.cuh <<'PY'
import re, sys
old_path, new_path = sys.argv[1], sys.argv[2]
rule = re.search(r"\n(// The smallest variant.*?\n}\n)", open(new_path).read(), re.S).group(1)
old = open(old_path).read().replace("#pragma once\n", '#pragma once\n\n#include "flashattn.h"\n', 1)
open(old_path, "w").write(old.replace("template <Variant V>\nstruct Features", rule + "\ntemplate <Variant V>\nstruct Features", 1))
PY
    fi
    names+=("$name")
  done
  { printf '#define PROBE_VARIANTS'; for n in "${names[@]}"; do printf ' X(%s)' "$n"; done; echo; } > "$dir/gen/probes/variants.h"
  flags=(-std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a)
  probe_flags=(); [ "${PROBE_EVERY_VARIANT:-0}" = 1 ] && probe_flags+=(-DPROBE_EVERY_VARIANT)
  [ "${PROBE_FWD_TILES:-0}" = 1 ] && probe_flags+=(-DPROBE_FWD_TILES)
  pids=()
  for n in "${names[@]}"; do
    tree="$dir/src/$n/cuda-src"
    nvcc "${flags[@]}" "${probe_flags[@]}" -DVARIANT_NAMESPACE="flashattn_variant_$n" -DVARIANT_ENTRY="variant_$n" -I"$tree" \
      -I"$tree/include" -c "$tree/probes/variant_entry.cu" -o "$dir/$n.o" &
    pids+=($!)
    # As many nvcc at a time as cores.
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do sleep 1; done
  done
  for p in "${pids[@]}"; do wait "$p"; done
  nvcc "${flags[@]}" -Icuda-src -Icuda-src/include -I"$dir/gen" -c cuda-src/probes/variant_ab.cu -o "$dir/driver.o"
  nvcc "${flags[@]}" -L"$CUDA_HOME/lib" -o "$dir/variant-ab" "$dir/driver.o" $(for n in "${names[@]}"; do echo "$dir/$n.o"; done)
  echo "$dir/variant-ab built in $(( $(date +%s) - start )) s: ${names[*]}"
  ;;
run)
  shift
  "$dir/variant-ab" "$@"
  ;;
*)
  sed -n '2,19p' "$0" >&2
  exit 2
  ;;
esac
