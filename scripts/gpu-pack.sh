#!/usr/bin/env bash
# Build the GPU test, fuzz and bench executables here (no GPU needed) and pack them, stripped,
# into dist/gpu/ with the runner, so they run on a host with the NVIDIA driver and no Rust.
#
#   scripts/gpu-pack.sh            # then carry dist/gpu.txz (or dist/gpu/, or the whole checkout) to the GPU host
#   FLASHATTN_CUDA_ARCHS=90a scripts/gpu-pack.sh   # Hopper only: half the nvcc time
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

dist=dist/gpu
rm -rf "$dist"
mkdir -p "$dist/bin"
start=$(date +%s)

# The kernel library's build script reruns when a file it watches changed, and it watches
# absolute paths: a target directory last used from another checkout (a git worktree) watches
# that checkout's files, so this one's kernel changes would not rebuild and the pack would hold
# the other checkout's kernels. Clear the library's build outputs when the checkout differs.
target_dir=${CARGO_TARGET_DIR:-target}
stamp="$target_dir/.flashattn-pack-checkout"
if [ "$(cat "$stamp" 2>/dev/null)" != "$(pwd)" ]; then rm -rf "$target_dir"/release/build/flashattn-sys-*; fi
mkdir -p "$target_dir" && pwd > "$stamp"

# Test executables: cargo prints their paths as JSON; copy each under a stable name.
cargo test --release --workspace --no-run --message-format=json 2>/dev/null \
  | python3 -c '
import json, sys, shutil, os
dist = sys.argv[1]
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable") or not m["profile"]["test"]:
        continue
    if m["target"]["kind"] == ["bin"]:
        continue  # binaries have no unit tests here
    # Only tests that need (or behave differently with) a GPU travel; CI runs the rest.
    if not (m["target"]["name"].startswith("gpu_") or m["target"]["name"] in ("validation", "flashattn_sys")):
        continue
    crate = os.path.basename(os.path.dirname(m["manifest_path"]))
    name = crate + "--" + m["target"]["name"]
    shutil.copy(m["executable"], os.path.join(dist, "bin", name))
    print("packed test", name)
' "$dist"
cargo build --release --workspace --bins
for b in flashattn-selftest flashattn-fuzz flashattn-accuracy flashattn-bench flashattn-report; do
    if [ -x "$target_dir/release/$b" ]; then cp "$target_dir/release/$b" "$dist/bin/"; echo "packed bin $b"; fi
done
strip "$dist"/bin/* 2>/dev/null || true
cp crates/flashattn-bench/python/*.py "$dist/" 2>/dev/null || true
git rev-parse --short HEAD > "$dist/COMMIT" 2>/dev/null || echo unknown > "$dist/COMMIT"
echo "${FLASHATTN_CUDA_ARCHS:-80;90a}" > "$dist/ARCHS"
# One compressed archive: what travels to a lent GPU host is size-limited. Every executable
# embeds the same kernels, so one solid xz stream whose dictionary is larger than an executable
# stores them about once (2026-11-25, 90a: 12 executables of 47-56 MB in 14 MB, where gzip
# compresses each alone). xz must run single-threaded: its threads compress separate blocks and
# lose the matches across executables. PACK_FORMAT=gzip is quicker to write (minutes less).
rm -f dist/gpu.txz dist/gpu.tar.gz
case "${PACK_FORMAT:-xz}" in
    xz) archive=dist/gpu.txz; tar -cf - -C dist gpu | xz --lzma2=preset=6,dict=256MiB -T1 > "$archive" ;;
    gzip) archive=dist/gpu.tar.gz; tar -czf "$archive" -C dist gpu ;;
    *) echo "PACK_FORMAT must be xz or gzip" >&2; exit 2 ;;
esac
end=$(date +%s)
echo "packed $(ls "$dist/bin" | wc -l) executables, $(du -sh "$dist" | cut -f1) ($(du -sh "$archive" | cut -f1) as $archive), in $((end - start)) s"
