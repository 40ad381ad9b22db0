#!/usr/bin/env bash
# Build flashattn-candle's GPU test binary and the llama_attention example here (no GPU needed),
# optimised and stripped, into dist/candle/ and dist/candle.tar.gz, for `scripts/gpu-run.sh
# candle` on a GPU host. Kernels for sm_90a only (the lent H100; FLASHATTN_CUDA_ARCHS overrides),
# candle-kernels for compute capability 90 (CUDA_COMPUTE_CAP overrides).
#
#   scripts/candle-gpu-pack.sh     # then carry dist/candle.tar.gz beside dist/gpu.tar.gz
#
# CANDLE_PACK_TXZ=1 also writes dist/candle.txz: the test binary alone, xz -9 (about 13 MB):
# the carry (64 MiB with the working tree) holds it beside dist/gpu.txz, where the tar.gz with
# the example (about 60 MB) does not; gpu-run.sh's candle step then skips the example.
#
# Profile: the dev profile with opt-level 3 for the crates on the timed path (candle, its gemm,
# cudarc, half, flashattn). Cargo runs a build script again for every profile whose opt-level
# it sees, so a release build would repeat candle-kernels' 12-18 minute nvcc build that
# scripts/test-candle.sh has already done in target/debug; candle-kernels keeps the dev profile
# and its PTX is the same either way (its nvcc flags do not follow the profile).
# CANDLE_PACK_PROFILE=release builds in the release profile instead.
set -euo pipefail
cd "$(dirname "$0")/.."
export FLASHATTN_SETUP_CANDLE=1
export FLASHATTN_CUDA_ARCHS="${FLASHATTN_CUDA_ARCHS:-90a}"
source scripts/setup.sh
manifest=crates/flashattn-candle/Cargo.toml
# The main workspace's target/ (as crates/flashattn-candle/.cargo/config.toml says for a cargo
# run inside that folder): flashattn-sys's kernels are built once for both.
export CARGO_TARGET_DIR="$PWD/target"
dist=dist/candle
rm -rf "$dist" dist/candle.tar.gz dist/candle.txz
mkdir -p "$dist/bin"
start=$(date +%s)
if [ "${CANDLE_PACK_PROFILE:-dev}" = release ]; then
  profile=(--release)
else
  profile=()
  for p in candle-core candle-nn gemm gemm-common gemm-f16 gemm-f32 half cudarc flashattn flashattn-sys flashattn-candle; do
    profile+=(--config "profile.dev.package.$p.opt-level=3" --config "profile.dev.package.$p.debug-assertions=false")
  done
fi

# The package selection of scripts/test-candle.sh (every target of the workspace): another
# selection would give candle-kernels' build script another feature set and another nvcc run.
cargo build "${profile[@]}" --manifest-path "$manifest" --locked --workspace --all-targets \
    --message-format=json 2>/dev/null \
  | python3 -c '
import json, shutil, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    kind, name = m["target"]["kind"], m["target"]["name"]
    if kind == ["test"] and name == "gpu":
        shutil.copy(m["executable"], sys.argv[1] + "/bin/flashattn-candle--gpu")
        print("packed test flashattn-candle--gpu")
    elif kind == ["example"] and name == "llama_attention":
        shutil.copy(m["executable"], sys.argv[1] + "/bin/llama_attention")
        print("packed example llama_attention")
' "$dist"
strip "$dist"/bin/* 2>/dev/null || true
git rev-parse --short HEAD > "$dist/COMMIT" 2>/dev/null || echo unknown > "$dist/COMMIT"
echo "$FLASHATTN_CUDA_ARCHS (candle-kernels: $CUDA_COMPUTE_CAP)" > "$dist/ARCHS"
tar -czf dist/candle.tar.gz -C dist candle
if [ "${CANDLE_PACK_TXZ:-0}" = 1 ]; then
  tar -cf - -C dist candle/bin/flashattn-candle--gpu candle/COMMIT candle/ARCHS | xz -T2 -9 > dist/candle.txz
  echo "packed the test binary alone as dist/candle.txz ($(du -sh dist/candle.txz | cut -f1))"
fi
echo "packed $(ls "$dist/bin" | wc -l) executables, $(du -sh "$dist" | cut -f1) ($(du -sh dist/candle.tar.gz | cut -f1) as dist/candle.tar.gz), in $(( $(date +%s) - start )) s"
