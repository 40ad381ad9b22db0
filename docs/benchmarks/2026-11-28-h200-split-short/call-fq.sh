#!/usr/bin/env bash
# Call FQ: the landed build (dist/gpu.txz of 9dc3654, whose cuda-src is 006564d's): 500 fuzz cases
# over every compiled configuration, then the fuzz-sanitizer step (--small: 60 cases under
# memcheck, 30 under racecheck, 30 under synccheck, each run cut at 70 s). Results in
# $OUT/call-fq/summary.txt.
set -uo pipefail
o=${OUT:-gpu-out}/call-fq
OUT=$o FUZZ_ARGS='--cases 500 --seed 631' FUZZ_SANITIZER_CASES='60 30 30' SANITIZER_LIMIT=70 \
  scripts/gpu-run.sh fuzz fuzz-sanitizer > "$o-run.log" 2>&1
rm -rf "$o/work"
grep -E "fuzz|cases|failed|SUMMARY" "$o/summary.txt" | head -40
