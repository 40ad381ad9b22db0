#!/usr/bin/env bash
# Call FT (thirty-sixth session, build 4aa9223): call FR's open fuzz failure, on the device
# (call FS ran the first version of the probe only: dist/gpu.txz was not carried).
# 1. accumulation_probe.cu: which model of the f32 sums of mma.sync and wgmma matches the device
#    bit for bit (the raw trials written to mma-*.bin and wgmma-*.bin, for fitting offline).
# 2. flashattn-fuzz --replay of FR's shrunk case on the dispatcher's choice and on every f16
#    head-dim-256 configuration (those without score modifiers refuse ALiBi), then with ALiBi
#    slopes of 0 and without ALiBi (the dense path), each on Auto and the score-modifier ones.
# 3. FR's run itself again, to its failing case (--walks --cases 14 --seed 641, no shrinking).
# Everything in $OUT/call-ft/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ft
mkdir -p "$o"
here=docs/benchmarks/2026-11-28-h200-accumulation
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
fz=dist/gpu/bin/flashattn-fuzz
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)

$nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Icuda-src -o "$o/accumulation_probe" \
  "$here/accumulation_probe.cu" > "$o/probe.log" 2>&1 &&
  timeout 120 "$o/accumulation_probe" 300 24 "$o" >> "$o/probe.log" 2>&1
echo "probe rc=$?" >> "$o/probe.log"
rm -f "$o/accumulation_probe"

line='dtype=f16 B=2 Sq=414 Sk=194 Hq=6 Hkv=6 D=256 causal=false window=(None, None) alignment=BottomRight softcap=None alibi=Some(Geometric { first: 0.25, ratio: 0.25 }) sinks=None scale=Some(1.8894372) kernel=Auto q_layout=Bshd kv_layout=Bshd v_layout=None o_layout=None inputs=Normal { std: 30.0 } seed=14545577712631101961 lse=false'
all="sm80_f16_d256_m64n64w4s1 sm80_f16_d256_m64n64w4s2 sm80_f16_d256_m64n32w4s2 sm80_f16_d256_m128n64w8s1 sm90_f16_d256_m64n64w4s2 sm90_f16_d256_m64n64w4s3 sm90_f16_d256_m128n64w8s2 sm90_f16_d256_m128n64w12s2ws sm90_f16_d256_m128n80w12s2ws"
mods="sm80_f16_d256_m64n64w4s1 sm80_f16_d256_m128n64w8s1 sm90_f16_d256_m128n64w8s2"
replay() {  # $1: label, $2: the line
  echo "## $1" >> "$o/replay.log"
  timeout 30 $fz --replay "$2" >> "$o/replay.log" 2>&1
  echo "rc=$?" >> "$o/replay.log"
}
replay "as shrunk, Auto" "$line"
for k in $all; do replay "as shrunk, $k" "${line/kernel=Auto/kernel=Named(\"$k\")}"; done
zero=${line/Geometric \{ first: 0.25, ratio: 0.25 \}/Constant(0.0)}
dense=${line/alibi=Some(Geometric \{ first: 0.25, ratio: 0.25 \})/alibi=None}
replay "slopes 0, Auto" "$zero"
for k in $mods; do replay "slopes 0, $k" "${zero/kernel=Auto/kernel=Named(\"$k\")}"; done
replay "no ALiBi, Auto" "$dense"
for k in $all; do replay "no ALiBi, $k" "${dense/kernel=Auto/kernel=Named(\"$k\")}"; done

timeout 100 $fz --walks --cases 14 --seed 641 --max-shrinks 0 > "$o/fuzz-fr.log" 2>&1
echo "rc=$?" >> "$o/fuzz-fr.log"

tar -czf "$o/../call-ft.tar.gz" -C "$o" . && rm -rf "$o" && mkdir -p "$o" && mv "$o/../call-ft.tar.gz" "$o/"
tar -xzOf "$o/call-ft.tar.gz" ./replay.log | grep -E "^##|^PASS|^FAIL|error" | sed -E 's/dtype=.*\[/[/' | head -80
tar -xzOf "$o/call-ft.tar.gz" ./fuzz-fr.log | tail -12
tar -xzOf "$o/call-ft.tar.gz" ./probe.log | grep -E "device|layout|rc=|exact sum|keep 2[67] acc aligned"
