#!/usr/bin/env bash
# Every warp-specialized kernel of a build runs without a stack frame (cuobjdump -res-usage:
# STACK:0). Their registers are fixed by setmaxnreg, so what ptxas cannot keep in them it spills
# to the stack, and a spill on a walk's tile boundary cost the three-consumer head-dim-64 walks
# 0.5-1.2% on the H200 (docs/benchmarks/2026-11-29-h200-roles.md). No GPU needed; seconds.
#
#   scripts/ws-stack-check.sh [PATH]
# PATH: a cargo target dir holding a flashattn-sys build (default: target; its newest kernel
# archive), or a directory of kernel objects. Exit 1 naming each kernel with a stack frame; 0 when
# none has one, or when the build has no warp-specialized kernels (FLASHATTN_CUDA_ARCHS without 90a).
# WS_STACK_ALLOWED: a regex of kernels (as c++filt prints them) allowed a stack frame, for a spill
# measured and kept on purpose (say where in the kernel's comment).
set -euo pipefail
cd "$(dirname "$0")/.."
path=${1:-target}
source scripts/setup.sh >/dev/null 2>&1
flashattn_setup_cuobjdump >&2
set +u
exec env PYTHONPATH=scripts python3 - "$path" <<'PY'
import os, re, sys

from kernel_objects import demangle, objects_of, resources

allowed = os.environ.get("WS_STACK_ALLOWED", "")
objects, _ = objects_of(sys.argv[1], "ws-stack-check")
kernels, with_stack = 0, []
for obj in objects.values():
    for (_, name), line in resources(obj).items():
        if "ws_kernel" not in name:
            continue
        kernels += 1
        stack = int(re.search(r"STACK:(\d+)", line).group(1))
        if stack > 0 and not (allowed and re.search(allowed, demangle(name))):
            with_stack.append(f"  STACK:{stack}  {demangle(name)}")
if kernels == 0:
    print("ws-stack-check: no warp-specialized kernels in this build (no sm_90a): nothing to check")
    sys.exit(0)
if with_stack:
    print(f"ws-stack-check: {len(with_stack)} of {kernels} warp-specialized kernels have a stack frame (spills):")
    print("\n".join(sorted(with_stack)))
    sys.exit(1)
print(f"ws-stack-check: {kernels} warp-specialized kernels, none with a stack frame")
PY
