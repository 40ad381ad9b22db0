#!/usr/bin/env python3
"""Where a kernel's warps stall, from Nsight Compute's source page.

Input: the CSV that `ncu --import REPORT --page source --print-source sass --csv` writes for a
report collected with source counters (`--set full` has them): one row per SASS instruction with
its warp-state samples per stall reason and its executed count. Output: the samples by reason
(share of all), then for the largest reasons the samples by opcode, and the instructions with
the most samples of the largest reason, each beside the instruction before it (a "wait" stall is
a fixed-latency dependency on something just above).

    ncu_stalls.py source.csv [--reasons 4] [--opcodes 8] [--lines 20]

Standard library only: it runs on the GPU host's Python as is.
"""

import argparse
import collections
import csv
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def opcode(sass):
    """The opcode without its predicate and modifiers: `@!P0 MUFU.EX2 R1, R2` -> `MUFU`."""
    words = sass.split()
    if not words:
        return ""
    op = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
    return op.split(".")[0]


def read_kernels(path):
    """Each kernel in the file: (name, header, rows). ncu writes a `"Kernel Name",...` line before
    each kernel's table."""
    kernels, name, header, rows = [], "", None, []
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == "Kernel Name":
                if header:
                    kernels.append((name, header, rows))
                name, header, rows = (row[1] if len(row) > 1 else ""), None, []
            elif row[0] == "Address":
                header = row
            elif header:
                rows.append(row)
    if header:
        kernels.append((name, header, rows))
    return kernels


def summarize(name, header, rows, args, out):
    column = {k: i for i, k in enumerate(header)}
    reasons = [k for k in header if k.startswith("stall_") and "(Not Issued)" not in k]
    if "Source" not in column or not reasons:
        out.write(f"{name}: no stall columns (collect with --set full or --section SourceCounters)\n")
        return
    def value(row, key):
        i = column[key]
        return number(row[i]) if i < len(row) else 0.0

    totals = {r: sum(value(row, r) for row in rows) for r in reasons}
    # ncu's own count where it gives one (a few samples carry no reason column).
    all_samples = "Warp Stall Sampling (All Samples)"
    samples = (sum(value(row, all_samples) for row in rows) if all_samples in column else sum(totals.values())) or 1.0
    out.write(f"{name}\n{len(rows)} SASS instructions, {samples:.0f} warp-state samples\n\n")
    out.write("samples by stall reason (share of all samples):\n")
    ranked = sorted(reasons, key=lambda r: -totals[r])
    for r in ranked:
        if totals[r] > 0:
            out.write(f"  {r:26s} {totals[r]:8.0f}  {totals[r] / samples:.3f}\n")
    ops = [opcode(row[column["Source"]]) for row in rows]
    executed = collections.Counter()
    if "Instructions Executed" in column:
        for op, row in zip(ops, rows):
            executed[op] += value(row, "Instructions Executed")
    for r in ranked[: args.reasons]:
        by_op = collections.Counter()
        for op, row in zip(ops, rows):
            by_op[op] += value(row, r)
        out.write(f"\n{r} by opcode (share of {r}; warp instructions executed):\n")
        for op, n in by_op.most_common(args.opcodes):
            out.write(f"  {op:12s} {n:8.0f}  {n / (totals[r] or 1.0):.3f}  {executed[op]:12.0f}\n")
    top = ranked[0]
    out.write(f"\ninstructions with the most {top} samples (address, samples, instruction <- the one before):\n")
    order = sorted(range(len(rows)), key=lambda i: -value(rows[i], top))[: args.lines]
    for i in sorted(order):
        sass = rows[i][column["Source"]].strip()
        before = rows[i - 1][column["Source"]].strip() if i > 0 else ""
        out.write(f"  {rows[i][0]} {value(rows[i], top):7.0f}  {sass[:64]:64s} <- {before[:48]}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", help="ncu --page source --print-source sass --csv output")
    parser.add_argument("--reasons", type=int, default=4, help="reasons broken down by opcode")
    parser.add_argument("--opcodes", type=int, default=8, help="opcodes listed per reason")
    parser.add_argument("--lines", type=int, default=20, help="instructions listed for the largest reason")
    args = parser.parse_args()
    kernels = read_kernels(args.csv)
    if not kernels:
        sys.exit(f"{args.csv}: no source table (was the report collected with source counters?)")
    for k, (name, header, rows) in enumerate(kernels):
        if k:
            sys.stdout.write("\n")
        summarize(name, header, rows, args, sys.stdout)


if __name__ == "__main__":
    main()
