#!/usr/bin/env bash
# Call FK: what racecheck objects to in the split's third version (call FJ: 333 errors, all pairs
# of the merge's slot writes and consumer 0's reads, synccheck clean). (1) racecheck_probe.cu, the
# merge's barrier pattern alone (bar.sync 7, 384 of a 512-thread CTA; nvcc -O3 -lineinfo
# -gencode=arch=compute_90a,code=sm_90a, carried as dist/racecheck_probe); (2) ws_short_last_tiles
# under racecheck with --racecheck-report hazard (the threads, blocks and addresses of each
# hazard). Results in $OUT/call-fk/ (report.txt).
set -uo pipefail
o=${OUT:-gpu-out}/call-fk
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
r=$o/report.txt
echo "build $(cat dist/gpu/COMMIT)" > "$r"
for rep in analysis hazard; do
  timeout 60 "$san" --tool racecheck --racecheck-report $rep --error-exitcode 9 dist/racecheck_probe > "$o/probe-$rep.log" 2>&1
  echo "== probe, racecheck --racecheck-report $rep: rc=$?" >> "$r"
  head -40 "$o/probe-$rep.log" | cut -c1-300 >> "$r"
done
start=$SECONDS
timeout 200 "$san" --tool racecheck --racecheck-report hazard --print-limit 60 --error-exitcode 9 \
  dist/gpu/bin/fuzz--gpu_grid --include-ignored --test-threads=1 --nocapture --exact ws_short_last_tiles > "$o/ws-hazard.log" 2>&1
echo "== ws_short_last_tiles, racecheck --racecheck-report hazard: rc=$? in $((SECONDS - start)) s" >> "$r"
grep -E "SUMMARY|cases" "$o/ws-hazard.log" | tail -3 >> "$r"
# Each hazard, its kernel names shortened.
grep -E "hazard|Thread|block|Current|Incoming|at 0x|ws_kernel.cuh" "$o/ws-hazard.log" | grep -v "^=========         " \
  | sed -E 's/flashattn::sm90::WsTraits<[^>]*>/T/g; s/\[lambda[^]]*\]/[lambda]/g; s/flashattn::sm90::ws_kernel<T, \(flashattn::Variant\)([0-9]), \(bool\)1>\(flashattn::sm90::WsArgs\)/ws_kernel<T,V\1>/g' \
  | cut -c1-400 | head -400 >> "$r"
xz -9 "$o/ws-hazard.log"
cat "$r" | head -120
