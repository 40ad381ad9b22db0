#!/usr/bin/env bash
# Call FX (build f8f5222, main's Rust and kernels since): more fuzzing with the new naive, to look
# for other failures: 400 --walks cases (seed 671), 600 cases with a mask or score modifier in
# every case (--features always, seed 673), 400 f16 cases (seed 677). Results in $OUT/call-fx/.
set -uo pipefail
o=${OUT:-gpu-out}/call-fx
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
fz=dist/gpu/bin/flashattn-fuzz
run() {  # $1: log name, $2: time limit, rest: arguments
  local name=$1 limit=$2
  shift 2
  timeout "$limit" $fz "$@" > "$o/$name.log" 2>&1
  echo "rc=$?" >> "$o/$name.log"
}
run walks 200 --walks --cases 400 --seed 671
run always 170 --features always --cases 600 --seed 673
run f16 150 --dtype f16 --cases 400 --seed 677
for f in walks always f16; do
  echo "== $f"; grep -E "^\[ *[0-9.]+ s\] [0-9]+ cases|cases passed|failures:|FAIL|worst error ratio|^rc=" "$o/$f.log" | tail -6 | cut -c1-400
done
