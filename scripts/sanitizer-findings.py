#!/usr/bin/env python3
"""What a compute-sanitizer log objects to, in a few lines: its reports grouped by kind and by the
source lines they name (racecheck: the two accesses of a hazard; memcheck and synccheck: the
error and where), most frequent first. gpu-run.sh appends these to its summary when a tool fails,
since the logs themselves often do not come back from a lent GPU.

    scripts/sanitizer-findings.py LOG [MAX_LINES]
    scripts/sanitizer-findings.py --self-test
"""
import collections
import re
import sys

LOCATION = re.compile(r"in (?:\S*/)?([\w.-]+\.(?:cuh|cu|h|hpp|cpp)):(\d+)")
ACCESS = re.compile(r"\b(Read|Write) access\b")
HAZARDS = re.compile(r"\[(\d+) hazards\]")


def reports(lines):
    """Yield each report as (headline, [continuation lines])."""
    head, body = None, []
    for line in lines:
        # A report may follow a test's own output on the same line.
        at = line.find("=========")
        if at < 0:
            continue
        text = line[at + len("=========") :].rstrip("\n")
        if text.startswith("     ") or not text.strip():
            if head is not None:
                body.append(text.strip())
            continue
        if head is not None:
            yield head, body
        head, body = text.strip(), []
    if head is not None:
        yield head, body


def keys_of(head, body):
    """A report's kind and the source lines it names, with a weight: racecheck's hazard count for
    each pair of accesses (its first access against each \"and ... access\" line), else 1."""
    if head.startswith(("ERROR SUMMARY", "RACECHECK SUMMARY", "COMPUTE-SANITIZER", "Program hit", "Target application")):
        return []
    if "Race reported" in head:
        first, where = ACCESS.search(head), LOCATION.search(head)
        mine = f"{first.group(1)} {where.group(1)}:{where.group(2)}" if first and where else "?"
        pairs = []
        for part in body:
            access, where = ACCESS.search(part), LOCATION.search(part)
            if access and where:
                count = HAZARDS.search(part)
                other = f"{access.group(1)} {where.group(1)}:{where.group(2)}"
                pairs.append((f"race: {mine} / {other}", int(count.group(1)) if count else 1))
        return pairs or [(f"race: {mine}", 1)]
    kind = re.sub(r"0x[0-9a-f]+|\d+", "N", head.split(".")[0])[:80]
    where = [f"{m.group(1)}:{m.group(2)}" for part in body for m in [LOCATION.search(part)] if m][:2]
    return [(f"{kind}: {' <- '.join(where) or 'no source line'}", 1)]


def findings(lines, limit):
    counts = collections.Counter()
    for head, body in reports(lines):
        for key, weight in keys_of(head, body):
            counts[key] += weight
    out = [f"    {n:8d}  {text}" for text, n in counts.most_common(limit)]
    if len(counts) > limit:
        out.append(f"    ... {len(counts) - limit} more kinds of report")
    return out


# Shortened reports in compute-sanitizer 2025's formats (racecheck, then synccheck).
SAMPLE = """test ws_short_last_tiles ... ========= Error: Race reported between Read access at auto k()::lambda+0xfd20 in ws_kernel.cuh:437
=========     and Write access at auto k()::lambda+0x10580 in ws_kernel.cuh:410 [149312 hazards]
=========     and Write access at void t::finish()+0x10d70 in warpgroup_tile.cuh:237 [7680 hazards]
=========
========= Error: Race reported between Read access at auto k()::lambda+0xfd30 in ws_kernel.cuh:437
=========     and Write access at auto k()::lambda+0x10590 in ws_kernel.cuh:410 [10 hazards]
=========
========= Barrier error detected. Divergent thread(s) in warp
=========     at 0x1c0 in /src/cuda-src/sm90/ws_kernel.cuh:412:void k()
=========     by thread (3,0,0) in block (0,0,0)
=========
========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)
""".splitlines()


def self_test():
    got = findings(SAMPLE, 2)
    assert got == [
        "      149322  race: Read ws_kernel.cuh:437 / Write ws_kernel.cuh:410",
        "        7680  race: Read ws_kernel.cuh:437 / Write warpgroup_tile.cuh:237",
        "    ... 1 more kinds of report",
    ], got
    assert findings(SAMPLE, 8)[-1] == "           1  Barrier error detected: ws_kernel.cuh:412", findings(SAMPLE, 8)
    assert findings(["========= ERROR SUMMARY: 0 errors"], 8) == []
    print("sanitizer-findings: self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    with open(sys.argv[1], errors="replace") as log:
        print("\n".join(findings(log, limit)))


if __name__ == "__main__":
    main()
