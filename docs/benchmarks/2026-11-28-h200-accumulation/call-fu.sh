#!/usr/bin/env bash
# Call FU (build f8f5222: the naive's f32 scores summed as the matrix units sum them): does the
# rule now judge call FR's case as the model predicts, and does nothing else change?
# 1. --replay of FR's shrunk case (Auto and each score-modifier configuration) and of the case as
#    first drawn; then FR's run again (--walks --cases 14 --seed 641).
# 2. Every GPU test (grid, fuzz, varlen, decode, merge, stream order, validation).
# 3. 600 default fuzz cases over every configuration (seed 661) and 200 --walks cases (seed 663).
# Everything in $OUT/call-fu/.
set -uo pipefail
o=${OUT:-gpu-out}/call-fu
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
fz=dist/gpu/bin/flashattn-fuzz

line='dtype=f16 B=2 Sq=414 Sk=194 Hq=6 Hkv=6 D=256 causal=false window=(None, None) alignment=BottomRight softcap=None alibi=Some(Geometric { first: 0.25, ratio: 0.25 }) sinks=None scale=Some(1.8894372) kernel=Auto q_layout=Bshd kv_layout=Bshd v_layout=None o_layout=None inputs=Normal { std: 30.0 } seed=14545577712631101961 lse=false'
drawn='dtype=f16 B=2 Sq=1025 Sk=412 Hq=6 Hkv=6 D=256 causal=false window=(Some(221), None) alignment=BottomRight softcap=None alibi=Some(Geometric { first: 0.25, ratio: 0.25 }) sinks=None scale=Some(1.8894372) kernel=Named("sm80_f16_d256_m64n64w4s1") q_layout=Bshd kv_layout=Padded { head_gap: 16, row_gap: 16 } v_layout=None o_layout=None inputs=Normal { std: 30.0 } seed=14545577712631101961 lse=true'
replay() {  # $1: label, $2: the line
  echo "## $1" >> "$o/replay.log"
  timeout 30 $fz --replay "$2" >> "$o/replay.log" 2>&1
  echo "rc=$?" >> "$o/replay.log"
}
replay "as shrunk, Auto" "$line"
for k in sm80_f16_d256_m64n64w4s1 sm80_f16_d256_m128n64w8s1 sm90_f16_d256_m128n64w8s2 sm90_f16_d256_m128n64w12s2ws sm90_f16_d256_m128n80w12s2ws; do
  replay "as shrunk, $k" "${line/kernel=Auto/kernel=Named(\"$k\")}"
done
replay "as drawn (FR #13)" "$drawn"
timeout 60 $fz --walks --cases 14 --seed 641 --max-shrinks 0 > "$o/fuzz-fr.log" 2>&1
echo "rc=$?" >> "$o/fuzz-fr.log"

OUT=$o FUZZ_ARGS='--cases 600 --seed 661' scripts/gpu-run.sh tests fuzz > "$o/run.log" 2>&1
timeout 150 $fz --walks --cases 200 --seed 663 > "$o/fuzz-walks.log" 2>&1
echo "rc=$?" >> "$o/fuzz-walks.log"
rm -rf "$o/work"

grep -E "^##|ratio=" "$o/replay.log" | sed -E 's/dtype=.*\]: //; s/\| LSE not checked//' | paste - - | cut -c1-170
tail -4 "$o/fuzz-fr.log"; tail -3 "$o/fuzz-walks.log"
tail -30 "$o/summary.txt"
