#!/usr/bin/env bash
# Call IM: flashattn-selftest of b88ccf3 (each row timed in its own dtype, the
# timed call's configuration and schedule printed; dist/selftest-new.xz over call IH's pack) on
# the lent H200, as scripts/run.sh runs it there. Results in $OUT/call-im/.
set -uo pipefail
o=${OUT:-gpu-out}/call-im
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
xz -dc dist/selftest-new.xz > dist/gpu/bin/flashattn-selftest && chmod +x dist/gpu/bin/flashattn-selftest
dist/gpu/bin/flashattn-selftest > "$o/selftest.txt" 2>&1
echo "selftest: rc=$?" >> "$o/selftest.txt"
cat "$o/selftest.txt"
