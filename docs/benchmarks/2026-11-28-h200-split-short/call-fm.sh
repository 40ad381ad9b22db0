#!/usr/bin/env bash
# Call FM (after FL: the turn ring alone makes racecheck report the merge): racecheck_probe.cu (carried as dist/racecheck_probe) under racecheck, one mode a run:
# the merge's barrier pattern alone, then with ws_kernel's producer thread alive, its turn ring,
# setmaxnreg (FL: hung, 240 registers too many), and three ways out: the merge by mbarriers, on barrier 0, and (main's epilogue pattern) an exchange within a consumer (call FK: the kernel's merge
# reported, the pattern alone clean)? Results in $OUT/call-fm/probe.txt.
set -uo pipefail
o=${OUT:-gpu-out}/call-fm
mkdir -p "$o"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for mode in 3 5 6 7 8; do
  timeout 60 "$san" --tool racecheck --error-exitcode 9 dist/racecheck_probe $mode > "$o/mode-$mode.log" 2>&1
  echo "mode $mode: rc=$? $(grep -E 'merge_probe|RACECHECK SUMMARY' "$o/mode-$mode.log" | tr '\n' ' ')" >> "$o/probe.txt"
  grep -m 4 -E "Race reported|Potential" "$o/mode-$mode.log" | cut -c1-200 >> "$o/probe.txt"
done
rm -f "$o"/mode-*.log
cat "$o/probe.txt"
