#!/usr/bin/env python3
"""Reads a timeline probe's records (cuda-src/probes/timeline.cu, common/timeline.cuh) and
prints where the launch's time went: per tile, the phases outside the key loop against the
steady cost of a key tile; per SM, the gaps between one CTA's exit and the next one's entry and
the idle time at the launch's start and end. Cycles are SM clock cycles (each SM's own
counter: compared only within one SM); microseconds use the clock measured over the launch.

    scripts/timeline-report.py OUT/timeline-....bin
"""
import statistics
import struct
import sys

# common/timeline.cuh
ENTRY, GRID_READY, BARRIERS_READY, Q_ISSUED, SM, ENTRY_NS, TILE, KEY_TILES = range(8)
CONSUMER, CONSUMER_STRIDE = 16, 80
Q_LANDED, FIRST_S, LAST_TURN, LAST_PV, STAGED, STORE_ISSUED, EXIT, EXIT_NS = range(8)
TURN = 16


def load(path):
    with open(path, "rb") as f:
        header = struct.unpack("<8q", f.read(64))
        tiles, tiles_per_cta, slots, block_m, sms, config_used = header[:6]
        data = f.read()
    # Records: (CTA, tile within it) and its slots (cuda-src/probes/timeline.cu).
    size = 8 * (2 + slots)
    by_cta = {}
    for at in range(0, len(data), size):
        cta, t = struct.unpack_from("<2q", data, at)
        by_cta.setdefault(cta, {})[t] = struct.unpack_from(f"<{slots}Q", data, at + 16)
    ctas = []
    for cta in sorted(by_cta):
        records = by_cta[cta]
        if 0 not in records or records[0][ENTRY] == 0:
            continue
        walk = []
        for t in range(tiles_per_cta):
            if t not in records or records[t][TILE] == 0:
                break
            walk.append(records[t])
        ctas.append(walk)
    return dict(block_m=block_m, sms=sms, tiles=tiles), ctas


def consumer(r, k, mark):
    return r[CONSUMER + k * CONSUMER_STRIDE + mark]


def consumers(r):
    """The consumers that computed the tile (a passing consumer leaves no marks)."""
    return [k for k in range(3) if consumer(r, k, LAST_TURN) != 0]


def cta_exit(records, mark=EXIT):
    """A CTA's end: its last consumer's exit mark (EXIT cycles or EXIT_NS), on its last tile."""
    return max(consumer(records[-1], k, mark) for k in consumers(records[-1]))


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    info, ctas = load(sys.argv[1])
    if not ctas:
        sys.exit("no records")
    # The SM clock over the launch, from each CTA's entry and exit in both clocks.
    rates = []
    for records in ctas:
        last = records[-1]
        ks = consumers(last)
        if not ks:
            continue
        k = ks[0]
        cycles = consumer(last, k, EXIT) - records[0][ENTRY]
        ns = consumer(last, k, EXIT_NS) - records[0][ENTRY_NS]
        if ns > 0:
            rates.append(cycles / ns)
    ghz = med(rates)
    us = lambda cycles: cycles / ghz / 1000

    rows = []  # (phase, cycles per tile)
    def phase(name, xs):
        rows.append((name, med(xs), len(xs)))

    c0 = lambda r, m: consumer(r, 0, m)
    firsts = [records[0] for records in ctas]
    phase("entry -> past the grid wait", [r[GRID_READY] - r[ENTRY] for r in firsts])
    phase("grid wait -> tile and barriers set up", [r[BARRIERS_READY] - r[GRID_READY] for r in firsts])
    phase("barriers -> first Q issued", [r[Q_ISSUED] - r[BARRIERS_READY] for r in firsts])
    all_tiles = [r for records in ctas for r in records if consumers(r)]
    phase("Q issued -> Q landed (consumer 0)", [c0(r, Q_LANDED) - r[Q_ISSUED] for r in all_tiles if c0(r, Q_LANDED) > r[Q_ISSUED]])
    phase("Q landed -> first S (consumer 0)", [c0(r, FIRST_S) - c0(r, Q_LANDED) for r in all_tiles])
    phase("first S -> turn 1 (consumer 0)", [c0(r, TURN + 1) - c0(r, FIRST_S) for r in all_tiles if c0(r, TURN + 1)])
    # The steady key tile: the median interval between a consumer's consecutive turns, past the
    # first two.
    intervals = []
    for r in all_tiles:
        for k in consumers(r):
            turns = [consumer(r, k, TURN + i) for i in range(1, CONSUMER_STRIDE - TURN)]
            turns = [t for t in turns if t != 0]
            intervals += [b - a for a, b in zip(turns[1:], turns[2:])]
    steady = med(intervals)
    rows.append(("steady key tile (turn to turn)", steady, len(intervals)))
    phase("last turn -> last P.V done (consumer 0)", [c0(r, LAST_PV) - c0(r, LAST_TURN) for r in all_tiles])
    phase("last P.V -> O staged (consumer 0)", [c0(r, STAGED) - c0(r, LAST_PV) for r in all_tiles])
    phase("O staged -> store issued (consumer 0)", [c0(r, STORE_ISSUED) - c0(r, STAGED) for r in all_tiles])
    lasts = [records[-1] for records in ctas if consumers(records[-1])]
    phase("store issued -> exit (consumer 0, last tile)", [c0(r, EXIT) - c0(r, STORE_ISSUED) for r in lasts])
    k_last = max(consumers(all_tiles[0]))
    full = [r for r in all_tiles if k_last in consumers(r)]
    phase(f"consumer 0's last turn -> consumer {k_last}'s", [consumer(r, k_last, LAST_TURN) - c0(r, LAST_TURN) for r in full])
    phase(f"consumer {k_last}: last turn -> exit",
          [consumer(r, k_last, EXIT) - consumer(r, k_last, LAST_TURN) for r in lasts if k_last in consumers(r)])
    # A persistent walk: consumer 0 from a tile's last turn to the next tile's first S and turn 1.
    pairs = [(a, b) for records in ctas for a, b in zip(records, records[1:]) if c0(a, LAST_TURN) and c0(b, FIRST_S)]
    if pairs:
        phase("walk: last turn -> next tile's Q landed (c0)", [c0(b, Q_LANDED) - c0(a, LAST_TURN) for a, b in pairs])
        phase("walk: last turn -> next tile's first S (c0)", [c0(b, FIRST_S) - c0(a, LAST_TURN) for a, b in pairs])
        phase("walk: last turn -> next tile's turn 1 (c0)",
              [c0(b, TURN + 1) - c0(a, LAST_TURN) for a, b in pairs if c0(b, TURN + 1)])

    # Whole CTAs, entry to the last consumer's exit; what is not steady key tiles is the
    # boundary, spread over the CTA's tiles.
    finished = [records for records in ctas if consumers(records[-1])]
    cta_cycles = [cta_exit(records) - records[0][ENTRY] for records in finished]
    tiles_per_cta = med([len(records) for records in ctas])
    key_tiles = med([r[KEY_TILES] for r in all_tiles])
    print(f"{len(ctas)} CTAs, {len(all_tiles)} tiles ({info['block_m']} rows), {tiles_per_cta:g} tiles per CTA, "
          f"{key_tiles:g} key tiles per tile; SM clock {ghz:.3f} GHz over the launch")
    print(f"{'phase':48} {'cycles':>9} {'us':>7} {'n':>6}")
    for name, cycles, n in rows:
        print(f"{name:48} {cycles:9.0f} {us(cycles):7.3f} {n:6d}")
    cta = med(cta_cycles)
    # Per CTA: its time less its tiles' key tiles at the steady cost.
    beyond = [cycles - steady * sum(r[KEY_TILES] for r in records) for cycles, records in zip(cta_cycles, finished)]
    boundary = statistics.mean(beyond)
    print(f"{'CTA: entry -> last exit':48} {cta:9.0f} {us(cta):7.3f} {len(cta_cycles):6d}")
    print(f"{'  of it beyond steady key tiles (per tile)':48} {boundary / tiles_per_cta:9.0f} "
          f"{us(boundary / tiles_per_cta):7.3f}   (mean over CTAs / tiles per CTA)")

    # Per SM: gaps between consecutive CTAs (exit of one to entry of the next), and idle time
    # at the start and end of the launch in globaltimer ns (comparable across SMs).
    by_sm = {}
    for records in finished:
        by_sm.setdefault(records[0][SM], []).append(records)
    gaps = []
    for runs in by_sm.values():
        runs.sort(key=lambda rs: rs[0][ENTRY])
        for a, b in zip(runs, runs[1:]):
            gaps.append(b[0][ENTRY] - cta_exit(a))
    if gaps:
        print(f"{'gap: a CTA exit -> the next entry on its SM':48} {med(gaps):9.0f} {us(med(gaps)):7.3f} {len(gaps):6d}")
    starts = {sm: min(rs[0][ENTRY_NS] for rs in runs) for sm, runs in by_sm.items()}
    ends = {sm: max(cta_exit(rs, EXIT_NS) for rs in runs) for sm, runs in by_sm.items()}
    t0, t1 = min(starts.values()), max(ends.values())
    span = t1 - t0
    head = sum(s - t0 for s in starts.values()) / len(starts)
    tail = sum(t1 - e for e in ends.values()) / len(ends)
    counts = sorted(len(runs) for runs in by_sm.values())
    print(f"launch span {span / 1000:.2f} us on {len(by_sm)} SMs ({counts[0]}-{counts[-1]} CTAs each); "
          f"per SM on average idle {head / 1000:.2f} us before its first entry and {tail / 1000:.2f} us "
          f"after its last exit ({(head + tail) / span:.1%} of the span)")


if __name__ == "__main__":
    main()
