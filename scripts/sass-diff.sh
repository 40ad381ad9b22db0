#!/usr/bin/env bash
# Whether two builds' kernels are the same machine code: every function of every kernel object
# (flashattn-sys's instantiation files, the dispatcher, merge and decode units), per SM target,
# compared as cuobjdump prints it (instructions with their encodings, scheduling bits included;
# addresses dropped) and by its resources (registers, stack, shared and constant memory). No GPU
# needed. A change meant to leave some kernels alone (a refactor, or an edit aimed at one
# configuration) proves it here, instead of by timing them.
#
#   scripts/sass-diff.sh OLD NEW
#
# OLD, NEW: a directory holding the objects (a flashattn-sys OUT_DIR), or a cargo target
# directory (its flashattn-sys build with the newest kernel archive is used). Objects are matched
# by file name without cc's hash prefix; both builds should have the same FLASHATTN_CUDA_ARCHS.
# A base revision's objects, e.g.:
#
#   git worktree add /tmp/base REV
#   (cd /tmp/base && FLASHATTN_CUDA_ARCHS=90a CARGO_TARGET_DIR=/tmp/base-target cargo build --release -p flashattn-sys)
#   FLASHATTN_CUDA_ARCHS=90a cargo build --release -p flashattn-sys
#   scripts/sass-diff.sh /tmp/base-target target
#
# Prints one line per function that differs and a count. A function whose instructions and
# scheduling match once register numbers are set aside (another allocation of the same code: a
# refactor moves ptxas's choices) is reported as differing in "register numbers only"; otherwise
# "code", with the instruction counts and the first differing instruction, and/or "resources".
# Exits 0 when every function is the same, 1 when any differs or is in one build only, 2 when the
# inputs hold no objects.
#
#   scripts/sass-diff.sh --self-test [TARGET]
#
# checks the comparison itself on a build's objects (TARGET: a cargo target directory, default
# target/; scripts/test.sh runs it): an object against itself must be identical (exit 0), a
# kernel of one name compiled with two bodies must differ in code (exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --self-test ]; then
  out=$(ls -t "${2:-target}"/*/build/flashattn-sys-*/out/libflashattn_kernels.a 2>/dev/null | head -1)
  [ -n "$out" ] || { echo "sass-diff self-test: no flashattn-sys build under ${2:-target}" >&2; exit 2; }
  out=$(dirname "$out") tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/a" "$tmp/b"
  cp "$out"/*-merge_states.o "$tmp/a/merge.o"
  cp "$out"/*-merge_states.o "$tmp/b/merge.o"
  # One kernel, two bodies: the same function name with other code.
  source scripts/setup.sh >/dev/null 2>&1
  for n in 2 3; do
    mkdir -p "$tmp/times$n"
    echo "extern \"C\" __global__ void k(float *p) { p[threadIdx.x] = $n.0f * p[0]; }" > "$tmp/times$n.cu"
    nvcc -gencode=arch=compute_90a,code=sm_90a -c "$tmp/times$n.cu" -o "$tmp/times$n/k.o"
  done
  "$0" "$tmp/a" "$tmp/b" > "$tmp/same.txt" 2>&1 || { cat "$tmp/same.txt"; echo "sass-diff self-test: an object differs from itself" >&2; exit 1; }
  rc=0; "$0" "$tmp/times2" "$tmp/times3" > "$tmp/other.txt" 2>&1 || rc=$?
  if [ $rc != 1 ] || ! grep -q "^DIFFERS (code" "$tmp/other.txt"; then
    cat "$tmp/other.txt"; echo "sass-diff self-test: two kernels of one name were not told apart (exit $rc)" >&2; exit 1
  fi
  echo "sass-diff self-test: a build's merge_states.o against itself: $(tail -1 "$tmp/same.txt" | cut -d: -f2-);" \
    "one kernel with two bodies: $(tail -1 "$tmp/other.txt" | cut -d: -f2-)"
  exit 0
fi
if [ $# -ne 2 ]; then
  sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
source scripts/setup.sh >/dev/null 2>&1
flashattn_setup_cuobjdump >&2
set +u
exec env PYTHONPATH=scripts python3 - "$1" "$2" <<'PY'
import concurrent.futures, os, re, sys

from kernel_objects import cuobjdump, demangle, objects_of, resources

def functions(obj):
    """{(arch, function): (instructions, resources)} of one object."""
    code, arch, name = {}, None, None
    for line in cuobjdump(obj, "-sass").splitlines():
        if m := re.match(r"\s*code for (sm_\w+)", line):
            arch, name = m.group(1), None
        elif m := re.match(r"\s*Function : (\S+)", line):
            name = m.group(1)
            code[(arch, name)] = []
        elif name and line.strip().startswith("/*"):  # an instruction or its encoding's second word
            code[(arch, name)].append(re.sub(r"/\*[0-9a-f]{4,}\*/", "", line).strip())
    used = resources(obj)
    return {key: (lines, used.get(key, "")) for key, lines in code.items()}

def registers_only(old, new):
    """Whether two listings are the same instructions, operands and scheduling but for register
    numbers: with every R, UR, P and UP number blanked the texts match, and so does each
    instruction's control word (stalls, yield, barriers, reuse: the top 23 bits of its second
    encoding word). The allocation may differ (which value lives where); what the SM issues and
    when does not."""
    def instructions(lines):
        out = []
        for line in lines:
            words = re.findall(r"/\* (0x[0-9a-f]{16}) \*/", line)
            text = re.sub(r"/\*.*?\*/", "", line).strip()
            if text:
                out.append([text, words])
            elif out and words:
                out[-1][1] += words
        return out
    a, b = instructions(old), instructions(new)
    register = re.compile(r"\b(U?R|U?P)(\d+)\b")
    if len(a) != len(b) or not all(
            register.sub(r"\1#", ta) == register.sub(r"\1#", tb) and len(wa) == len(wb)
            and (not wa or int(wa[-1], 16) >> 41 == int(wb[-1], 16) >> 41)
            for (ta, wa), (tb, wb) in zip(a, b)):
        return None
    # Which register files the numbers differ in, and in how many instructions.
    files = {ka for (ta, _), (tb, _) in zip(a, b) if ta != tb
             for (ka, na), (_, nb) in zip(register.findall(ta), register.findall(tb)) if na != nb}
    return sorted(files), sum(ta != tb for (ta, _), (tb, _) in zip(a, b))

def short(name):
    return demangle(name).replace("flashattn::", "")

(old, old_dir), (new, new_dir) = objects_of(sys.argv[1], "sass-diff"), objects_of(sys.argv[2], "sass-diff")
print(f"old: {old_dir}\nnew: {new_dir}")
names = sorted(set(old) | set(new))
with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
    dumps = {(side, n): pool.submit(functions, objs[n]) for side, objs in (("old", old), ("new", new)) for n in names if n in objs}
same = differ = lone = renamed = 0
for n in names:
    if n not in old or n not in new:
        print(f"ONLY IN {'NEW' if n in new else 'OLD'}: {n}")
        lone += 1
        continue
    fo, fn = dumps[("old", n)].result(), dumps[("new", n)].result()
    for key in sorted(set(fo) | set(fn)):
        arch, fname = key
        if key not in fo or key not in fn:
            print(f"ONLY IN {'NEW' if key in fn else 'OLD'}: {n} {arch} {short(fname)}")
            lone += 1
        elif fo[key] == fn[key]:
            same += 1
        else:
            (co, ro), (cn, rn) = fo[key], fn[key]
            regs = registers_only(co, cn) if co != cn else None
            code = "code" if regs is None else f"register numbers only: {', '.join(regs[0])} in {regs[1]} instructions"
            what = [w for w, d in ((code, co != cn), ("resources", ro != rn)) if d]
            print(f"DIFFERS ({' and '.join(what)}): {n} {arch} {short(fname)}")
            renamed += code != "code"
            if co != cn:
                first = next((i for i, (a, b) in enumerate(zip(co, cn)) if a != b), min(len(co), len(cn)))
                at = lambda lines: repr(lines[first]) if first < len(lines) else "(end)"
                print(f"    {len(co)} -> {len(cn)} lines, first difference at line {first}: {at(co)} -> {at(cn)}")
            if ro != rn:
                print(f"    old {ro}\n    new {rn}")
            differ += 1
if same + differ + lone == 0:
    print("sass-diff: the builds have no functions to compare", file=sys.stderr)
    sys.exit(2)
print(f"{len(names)} objects: {same} functions identical, {differ} different ({renamed} of them in register"
      f" numbers only), {lone} in one build only")
sys.exit(0 if differ + lone == 0 else 1)
PY
