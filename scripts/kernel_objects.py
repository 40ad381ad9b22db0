"""A build's kernel objects and their resources as cuobjdump reports them: what sass-diff.sh and
ws-stack-check.sh both read (cuobjdump on PATH: scripts/setup.sh's flashattn_setup_cuobjdump)."""
import glob
import os
import re
import subprocess
import sys


def objects_of(path, tool):
    """({object name without cc's hash prefix: path}, the directory) of a directory of objects or of
    a cargo target dir (its flashattn-sys build with the newest kernel archive). Exit 2, naming
    `tool`, when there are none."""
    if glob.glob(os.path.join(path, "*.o")):
        out_dir = path
    else:
        archives = glob.glob(os.path.join(path, "*", "build", "flashattn-sys-*", "out", "libflashattn_kernels.a"))
        if not archives:
            print(f"{tool}: no objects in {path} (neither *.o nor a flashattn-sys build under it)", file=sys.stderr)
            sys.exit(2)
        out_dir = os.path.dirname(max(archives, key=os.path.getmtime))
    objects = glob.glob(os.path.join(out_dir, "*.o"))
    return {re.sub(r"^[0-9a-f]{16}-", "", os.path.basename(p)): p for p in objects}, out_dir


def cuobjdump(obj, *args):
    return subprocess.run(["cuobjdump", *args, obj], capture_output=True, text=True, check=True).stdout


def resources(obj):
    """{(arch, function): its resource line (REG, STACK, SHARED, LOCAL, ...)} of one object."""
    found, arch, name = {}, None, None
    for line in cuobjdump(obj, "-res-usage").splitlines():
        if m := re.search(r"arch = (sm_\w+)", line):
            arch = m.group(1)
        elif m := re.match(r"\s*Function (\S+?):?$", line):
            name = m.group(1)
        elif "REG:" in line:
            found[(arch, name)] = line.strip()
    return found


def demangle(name):
    """A function's C++ name (c++filt), or the mangled one where binutils is missing."""
    try:
        return subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip() or name
    except FileNotFoundError:
        return name
