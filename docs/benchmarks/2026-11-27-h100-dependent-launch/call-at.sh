#!/usr/bin/env bash
# Call AT: where a forward kernel lets its dependents launch. Two builds, each launching every
# forward kernel as a programmatic dependent: `late` (3fe2ddf: griddepcontrol.launch_dependents once
# a CTA's key loop is done) and `none` (never: a dependent is scheduled when every CTA has exited),
# against plain launches (the late build with FLASHATTN_FORWARD_SERIAL_LAUNCH=1), alternating, two
# rounds: seed and long suites by graph replay (flashattn-report compare against the plain side),
# then host cost per launch on the seed suite; the launch-floor probe (dist/launch_floor, with its
# two rows of empty kernels launched as dependents) before and after. From the checkout root on the
# GPU host, with dist/gpu-late.txz, dist/gpu-none.txz and dist/launch_floor carried; results in
# $OUT/call-at/.
set -uo pipefail
final=${OUT:-gpu-out}/call-at
out=$final/work
mkdir -p "$out"
summary=$final/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
for b in late none; do mkdir -p "dist/$b" && tar -xJf "dist/gpu-$b.txz" -C "dist/$b"; done
bench() {  # side args...
  local side=$1; shift
  case $side in
    serial) FLASHATTN_FORWARD_SERIAL_LAUNCH=1 dist/late/gpu/bin/flashattn-bench "$@" ;;
    *) "dist/$side/gpu/bin/flashattn-bench" "$@" ;;
  esac
}
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)  builds: late $(cat dist/late/gpu/COMMIT), none $(cat dist/none/gpu/COMMIT)"
dist/launch_floor > "$out/floor-before.txt" 2>&1
for r in 1 2; do
  for side in serial late none; do
    bench $side run --suite seed,long --modes graph --iters 30 --baseline none --label flashattn \
      --out "$out/ab-$side-$r.json" >> "$out/ab.log" 2>&1 || note "ab: $side run $r failed"
  done
  for side in late none; do
    dist/late/gpu/bin/flashattn-report compare "$out/ab-serial-$r.json" "$out/ab-$side-$r.json" > "$out/ab-$side-$r.txt" 2>&1
    note "$side vs plain, round $r: $(tail -1 "$out/ab-$side-$r.txt")"
    awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "    %-40s %s %s\n", shape, $5, $NF}' "$out/ab-$side-$r.txt" | tee -a "$summary"
  done
done
for r in 1 2; do
  for side in serial late none; do
    bench $side host --suite seed --out "$out/host-$side-$r.json" >> "$out/host.log" 2>&1 || note "host: $side run $r failed"
  done
done
python3 - "$out" <<'PY' | tee -a "$summary"
import json, statistics, sys
out = sys.argv[1]
def p50s(side, r):
    try:
        results = json.load(open(f"{out}/host-{side}-{r}.json"))["results"]
    except (OSError, ValueError):
        return {}
    return {(json.dumps(x["shape"], sort_keys=True), x["path"]): (x.get("summary") or {}).get("p50") for x in results}
runs = {side: [p50s(side, r) for r in (1, 2)] for side in ("serial", "late", "none")}
print("host cost: p50 us per run (median), plain / late / none")
for key in runs["serial"][0]:
    if key[1] not in ("bare ffi", "forward tracking-off"):
        continue
    shape = json.loads(key[0])
    name = f"{shape['dtype']} B{shape['batch']} H{shape['heads_q']} S{shape['seqlen_q']}{' causal' if shape['causal'] else ''}"
    cols = []
    for side in ("serial", "late", "none"):
        vals = [run[key] for run in runs[side] if run.get(key) is not None]
        cols.append(" ".join(f"{v:5.2f}" for v in vals) + (f" ({statistics.median(vals):5.2f})" if vals else " (-)"))
    print(f"    {name:26s} {key[1]:20s} " + " / ".join(cols))
PY
dist/launch_floor > "$out/floor-after.txt" 2>&1
for f in floor-before floor-after; do
  note "$f:"; grep -E 'cudaLaunchKernelEx, 256 B|dependent' "$out/$f.txt" | tr -s ' ' | sed 's/^/    /' | tee -a "$summary"
done
tar -czf "$final/logs.tar.gz" -C "$out" . && rm -rf "$out"
