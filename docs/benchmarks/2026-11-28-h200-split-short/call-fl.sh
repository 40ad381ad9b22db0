#!/usr/bin/env bash
# Call FL: racecheck_probe.cu (carried as dist/racecheck_probe) under racecheck, one mode a run:
# the merge's barrier pattern alone, then with ws_kernel's producer thread alive, its turn ring,
# both, and setmaxnreg. Which one makes racecheck report the merge (call FK: the kernel's merge
# reported, the pattern alone clean)? Results in $OUT/call-fl/probe.txt.
set -uo pipefail
o=${OUT:-gpu-out}/call-fl
mkdir -p "$o"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for mode in 0 1 2 3 4 5; do
  timeout 60 "$san" --tool racecheck --error-exitcode 9 dist/racecheck_probe $mode > "$o/mode-$mode.log" 2>&1
  echo "mode $mode: rc=$? $(grep -E 'merge_probe|RACECHECK SUMMARY' "$o/mode-$mode.log" | tr '\n' ' ')" >> "$o/probe.txt"
  grep -m 4 -E "Race reported|Potential" "$o/mode-$mode.log" | cut -c1-200 >> "$o/probe.txt"
done
rm -f "$o"/mode-*.log
cat "$o/probe.txt"
