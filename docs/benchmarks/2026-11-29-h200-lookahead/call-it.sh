#!/usr/bin/env bash
# Call IT: a 192-row 80-key head-dim-128 tile with three K/V buffers instead of four
# (m192n80w16s3ws, probe only: cuda-src/probes/probe_tiles.cuh), whose freed 40 KB give O a
# shared-memory tile of its own (WsTraits::kSeparateO): its walk stages O in shared memory and
# sends it by TMA store, like the head-dim-64 walks, instead of finish_to_global's shuffles and
# 16-byte stores from registers; and it walks at every length (no key limit, no split tail).
# Against the table's four-buffer tile, same process, 15 rounds. Variants: main (0ef31fe, where
# the new tile's walk also splits short tiles of at most 64 rows across its consumers, as the
# head-dim-64 walks do: ptxas spills 32-36 bytes there) and nosplit (the working tree:
# WsTraits::kWalkSplitsShortTiles only at head dim 64; no spills). The four-buffer tile is the
# same in both (the pair is the run's noise). Then the timeline probe (nosplit) of both tiles at
# bf16 B8 H16 S2048.
# Here: scripts/variant-ab.sh build main=0ef31fe nosplit=. ; scripts/timeline.sh build; both
# carried in dist/it.txz.
set -uo pipefail
o=${OUT:-gpu-out}/call-it
mkdir -p "$o"
mkdir -p dist/it && tar -xJf dist/it.txz -C dist/it
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
shapes=()
for tile in m192n80w16s4ws m192n80w16s3ws; do
  shapes+=("$tile bf16 8 16 2048 128" "$tile f16 8 16 2048 128" "$tile bf16 16 16 1024 128"
           "$tile bf16 4 16 4096 128" "$tile bf16 2 16 8192 128" "$tile bf16 1 16 16384 128"
           "$tile bf16 16 16 1024 128 causal" "$tile bf16 2 16 8192 128 causal")
done
start=$SECONDS
timeout 420 dist/it/variant-ab 15 "${shapes[@]}" > "$o/variant-ab.log" 2>&1
echo "variant-ab rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
for tile in m192n80w16s4ws m192n80w16s3ws; do
  name="$tile-bf16-8-16-2048-128"
  timeout 60 dist/it/timeline "$o/$name.bin" $tile bf16 8 16 2048 128 > "$o/$name.txt" 2>&1
  python3 scripts/timeline-report.py "$o/$name.bin" >> "$o/$name.txt" 2>&1
  rm -f "$o/$name.bin"
done
cat "$o/checks.txt"
grep -E "p50" "$o/variant-ab.log" | sed 's/  */ /g' | cut -c1-150
for f in "$o"/*.txt; do echo "== $f"; grep -E "steady|beyond|last turn ->|O staged|last P.V" "$f" | head -12; done
