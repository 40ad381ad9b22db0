#!/usr/bin/env bash
# Call GB (build d7637fa: the model with the input format, b66cbde's naive): the shrunk and drawn
# cases of call FR again, every GPU test, and 400 default fuzz cases (seed 681). Results in
# $OUT/call-gb/.
set -uo pipefail
o=${OUT:-gpu-out}/call-gb
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
fz=dist/gpu/bin/flashattn-fuzz
line='dtype=f16 B=2 Sq=414 Sk=194 Hq=6 Hkv=6 D=256 causal=false window=(None, None) alignment=BottomRight softcap=None alibi=Some(Geometric { first: 0.25, ratio: 0.25 }) sinks=None scale=Some(1.8894372) kernel=Auto q_layout=Bshd kv_layout=Bshd v_layout=None o_layout=None inputs=Normal { std: 30.0 } seed=14545577712631101961 lse=false'
drawn='dtype=f16 B=2 Sq=1025 Sk=412 Hq=6 Hkv=6 D=256 causal=false window=(Some(221), None) alignment=BottomRight softcap=None alibi=Some(Geometric { first: 0.25, ratio: 0.25 }) sinks=None scale=Some(1.8894372) kernel=Named("sm80_f16_d256_m64n64w4s1") q_layout=Bshd kv_layout=Padded { head_gap: 16, row_gap: 16 } v_layout=None o_layout=None inputs=Normal { std: 30.0 } seed=14545577712631101961 lse=true'
{ timeout 30 $fz --replay "$line"; echo "rc=$?"; timeout 30 $fz --replay "$drawn"; echo "rc=$?"; } > "$o/replay.log" 2>&1
OUT=$o FUZZ_ARGS='--cases 400 --seed 681' scripts/gpu-run.sh tests fuzz > "$o/run.log" 2>&1
rm -rf "$o/work"
sed -E 's/dtype=.*\]: //' "$o/replay.log" | cut -c1-160
grep -E "^test|cases|fuzz:" "$o/summary.txt" | head -20
