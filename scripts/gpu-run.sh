#!/usr/bin/env bash
# Runs on the GPU host, from the checkout root, over what scripts/gpu-pack.sh packed.
# Steps (default: all): tests sanitizer fuzz bench; also varlen-sanitizer, decode-sanitizer, fuzz-sanitizer,
# test-sanitizer (SANITIZE_TEST=one test of gpu_grid or SANITIZE_TEST_EXE), tune, gate, power (POWER_SHAPES: W and clock per kernel),
# profile (PROFILE_SHAPES: Nsight Compute per shape, stalls by reason and opcode),
# ab (AB_OLD=other build's flashattn-bench, AB_SHAPES=shape keys; AB_REPS pairs pooled into
# $OUT/ab-pooled.txt), host-ab (host cost per launch
# against AB_OLD: HOST_AB_REPS, HOST_AB_ARGS), kernel-ab (KERNEL_AB=configurations, AB_SHAPES; pooled
# into $OUT/kernel-ab-pooled-CONFIG.txt),
# tuned-ab (after tune: the tuned table against the dispatcher; TUNE_SHAPES limits both), regression
# (against the stored baseline; GATE_SDPA=1 with SDPA beside, to read ours net of the drift), accuracy
# (ours, naive and PyTorch SDPA against the f64 reference, per mask and score modifier), selftest,
# candle (scripts/candle-gpu-pack.sh packs it).
# Full logs go to $OUT (default ./gpu-out); a short table is printed last. Steps run in the order
# given: put the timing steps (ab, bench, regression) first, while the GPU is cool (the seed
# suite's microsecond kernels read 1-3% slower after minutes of tests). TEST_FILTER (a bash
# regex) limits the tests step to the test executables whose names match. kernel-ab: named
# configurations (KERNEL_AB) against the dispatcher's choice, same run, pairs pooled. AB_OLD may be an .xz
# file (the other build's flashattn-bench as carried). FUZZ_ARGS: the fuzz step's spaces (';'-separated
# flashattn-fuzz arguments; default the whole space, then the --walks and --splits presets). FUZZ_SANITIZER_ARGS replaces the
# fuzz-sanitizer step's space (default --small), e.g. '--max-seqlen 300 --config A,B --features always',
# and FUZZ_SANITIZER_CASES its case counts under memcheck, racecheck, synccheck (default "200 100 100");
# FUZZ_SANITIZER_SEED draws other cases than the default seed 7's.
# SANITIZER_LIMIT (seconds) bounds each compute-sanitizer run of the sanitizer steps, so a call with
# little device time ends with the runs that finished (a cut run is noted as "time limit"). A run
# that reports errors adds its reports, grouped by source line, to the summary
# (scripts/sanitizer-findings.py).
#
#   scripts/gpu-run.sh tests sanitizer
#   TEST_FILTER='gpu_grid|gpu_varlen|validation' scripts/gpu-run.sh ab tests
set -uo pipefail
cd "$(dirname "$0")/.."
bin=dist/gpu/bin
if [ ! -d "$bin" ]; then
  if [ -f dist/gpu.txz ]; then tar -xJf dist/gpu.txz -C dist; elif [ -f dist/gpu.tar.gz ]; then tar -xzf dist/gpu.tar.gz -C dist; fi
fi
final=${OUT:-gpu-out}
out="$final/work"   # everything lands here; bundled at the end (few files come back from a lent host)
mkdir -p "$out"
steps=${*:-tests sanitizer fuzz bench}
tune_shapes=(); [ -n "${TUNE_SHAPES:-}" ] && tune_shapes=(--shapes "$TUNE_SHAPES")
# AB_SHAPES: shape keys for ab and kernel-ab (comma-separated; they contain spaces, which AB_ARGS
# and KERNEL_AB_ARGS would split).
ab_shapes=(); [ -n "${AB_SHAPES:-}" ] && ab_shapes=(--shapes "$AB_SHAPES")
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
summary="$final/summary.txt"   # written where it comes back even if the run is cut off
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
# The per-shape new/old ratio of `flashattn-report compare` outputs into the summary: a line per
# shape, a column per file (in the order given).
ratio_columns() {
  awk 'FNR == 1 {f++} /^== /{shape = substr($0, 4); if (!(shape in row)) {row[shape] = ++n; name[n] = shape}}
       /^flashattn /{ratio[row[shape], f] = $5}
       END {for (i = 1; i <= n; i++) {line = sprintf("    %-44s", name[i]);
              for (j = 1; j <= f; j++) line = line " " ((i, j) in ratio ? ratio[i, j] : "-"); print line}}' "$@" | tee -a "$summary"
}
# One GPU test executable under each compute-sanitizer tool (SANITIZER_TOOLS):
#   [ENV=...] sanitize LABEL EXECUTABLE [TEST NAME FILTERS...]
# with its ignored (GPU) tests included and their output shown (--nocapture: the cases line a
# test prints, e.g. ws_short_last_tiles's, is noted); logs $out/LABEL-sanitizer-TOOL.log, notes
# the tool's summary and that cases line.
# compute-sanitizer under SANITIZER_LIMIT (when set): limited TOOL ARGS..., exit status 124 on the limit.
limited() {
  if [ -n "${SANITIZER_LIMIT:-}" ]; then timeout "$SANITIZER_LIMIT" "$sanitizer" --tool "$@"; else "$sanitizer" --tool "$@"; fi
}
# The other build's flashattn-bench for the ab and host-ab steps: AB_OLD, unpacked first when it
# is an .xz file (as carried); the final bundle leaves the unpacked copy out.
old_bench() {
  [ -n "${AB_OLD:-}" ] || return 1
  if [[ $AB_OLD == *.xz ]]; then
    xz -dc "$AB_OLD" > "$out/ab-old-bench" && chmod +x "$out/ab-old-bench" && echo "$out/ab-old-bench"
  else
    echo "$AB_OLD"
  fi
}
cut_note() { [ "$1" = 124 ] && [ -n "${SANITIZER_LIMIT:-}" ] && echo " (time limit)"; }
sanitize() {
  local label=$1 exe=$2; shift 2
  for tool in ${SANITIZER_TOOLS:-memcheck racecheck synccheck}; do
    local log="$out/$label-sanitizer-$tool.log" start=$SECONDS
    limited "$tool" --error-exitcode 9 "$exe" --include-ignored --test-threads=1 --nocapture "$@" > "$log" 2>&1
    local rc=$?
    note "$label sanitizer $tool: rc=$rc$(cut_note $rc) in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1); $(grep -E '[0-9]+ cases' "$log" | tail -1)"
    findings "$rc" "$log"
  done
}
# A failed sanitizer run's reports, grouped by the source lines they name, into the summary (the
# logs themselves often do not come back from a lent GPU).
findings() { [ "$1" = 0 ] || python3 scripts/sanitizer-findings.py "$2" 6 2>&1 | tee -a "$summary"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader > "$out/device.txt" 2>&1
note "device: $(cat "$out/device.txt")  commit: $(cat dist/gpu/COMMIT)  archs: $(cat dist/gpu/ARCHS)"

for step in $steps; do
  case $step in
    tests)
      for t in "$bin"/*--*; do
        name=$(basename "$t")
        if [ -n "${TEST_FILTER:-}" ] && ! [[ $name =~ $TEST_FILTER ]]; then continue; fi
        start=$SECONDS
        "$t" --include-ignored --nocapture --test-threads=4 > "$out/test-$name.log" 2>&1
        rc=$?
        secs=$((SECONDS - start))
        note "test $name: rc=$rc $(grep -E '^test result' "$out/test-$name.log" | tail -1) (${secs}s)"
        grep -E "^(grid|configs|worst|decode:|decode b)" "$out/test-$name.log" | sed 's/^/    /' | tee -a "$summary"
        [ $rc -ne 0 ] && grep -E "FAILED|panicked|fail" "$out/test-$name.log" | head -20 | sed 's/^/    /' | tee -a "$summary"
      done ;;
    sanitizer)
      FLASHATTN_TEST_SMALL=1 sanitize grid "$bin/fuzz--gpu_grid" every_config_on_awkward_shapes masks_and_score_mods_on_every_config ;;
    varlen-sanitizer)
      # The varlen grid and fuzzer on short sequences (FLASHATTN_TEST_SMALL).
      FLASHATTN_TEST_SMALL=1 FLASHATTN_VARLEN_CASES=${VARLEN_SANITIZER_CASES:-60} sanitize varlen "$bin/fuzz--gpu_varlen" ;;
    test-sanitizer)
      # One GPU test, by exact name (SANITIZE_TEST, e.g. ws_short_last_tiles), under each tool; from
      # the gpu_grid executable, or SANITIZE_TEST_EXE (e.g. flashattn--validation).
      sanitize "${SANITIZE_TEST:?test-sanitizer needs SANITIZE_TEST}" "$bin/${SANITIZE_TEST_EXE:-fuzz--gpu_grid}" \
        --exact "$SANITIZE_TEST" ;;
    decode-sanitizer)
      # The decode fuzzer's random caches (DECODE_SANITIZER_CASES, default 60).
      FLASHATTN_DECODE_CASES=${DECODE_SANITIZER_CASES:-60} sanitize decode "$bin/fuzz--gpu_decode" decode_matches ;;
    fuzz)
      # The fuzzer in each of FUZZ_ARGS's spaces (';'-separated): by default its whole space, then
      # the presets that reach the schedules a random case seldom takes (the persistent walks and
      # causal folds; the split tails, which need 4,096 keys and a workspace). Logs and JSON
      # fuzz.log / fuzz.json for the first space, fuzz-N.* for space N after it.
      IFS=';' read -r -a fuzz_spaces <<< "${FUZZ_ARGS:---cases 2000 --seed 1;--walks --seconds 90 --seed 2;--splits --seconds 90 --seed 3}"
      for i in "${!fuzz_spaces[@]}"; do
        space=${fuzz_spaces[$i]} suffix=${i/#0/}; suffix=${suffix:+-$suffix}
        start=$SECONDS log="$out/fuzz$suffix.log"
        "$bin/flashattn-fuzz" $space --json "$out/fuzz$suffix.json" > "$log" 2>&1
        rc=$?
        note "fuzz ($space): rc=$rc in $((SECONDS - start)) s; $(grep -E '^[0-9]+ cases, [0-9]+ failed|^all [0-9]+ cases passed' "$log" | tail -1)"
        tail -30 "$log" | tee -a "$summary"
      done ;;
    fuzz-sanitizer)
      # FUZZ_SANITIZER_CASES: the cases under memcheck, racecheck and synccheck (racecheck on a
      # 512-thread ws CTA is the slow one: a call with little device time passes e.g. "60 30 30"),
      # in each of the fuzzer's spaces FUZZ_SANITIZER_ARGS (';'-separated): by default the small
      # space and the walk preset at its sequence lengths (--small alone never walks; call IO of
      # docs/benchmarks/2026-11-29-h200-schedules.md). Logs fuzz-sanitizer-TOOL.log for the first
      # space, fuzz-sanitizer-TOOL-N.log for space N after it.
      read -r mem_cases race_cases sync_cases <<< "${FUZZ_SANITIZER_CASES:-200 100 100}"
      IFS=';' read -r -a fuzz_spaces <<< "${FUZZ_SANITIZER_ARGS:---small;--small --walks}"
      seed=${FUZZ_SANITIZER_SEED:-7}
      for i in "${!fuzz_spaces[@]}"; do
        space=${fuzz_spaces[$i]} suffix=${i/#0/}; suffix=${suffix:+-$suffix}
        for spec in "memcheck $mem_cases" "racecheck $race_cases" "synccheck $sync_cases"; do
          set -- $spec; start=$SECONDS log="$out/fuzz-sanitizer-$1$suffix.log"
          limited "$1" --error-exitcode 9 "$bin/flashattn-fuzz" $space --cases "$2" --seed "$seed" > "$log" 2>&1
          rc=$?
          note "fuzz ($space, seed $seed) under $1 ($2 cases): rc=$rc$(cut_note $rc) in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1); $(grep -E '^[0-9]+ cases, [0-9]+ failed|^all [0-9]+ cases passed' "$log" | tail -2 | tr '\n' ' ')"
          findings "$rc" "$log"
        done
      done ;;
    profile)
      # Nsight Compute on one launch of each of PROFILE_SHAPES (shape keys, ';'-separated; default
      # bf16 B8 H16 S2048 D128) of PROFILE_SUITES (default seed,long) after warm-up: the full set
      # with source counters, caches and clocks left alone (as a graph replay sees the kernel). Per
      # shape ncu_stalls.py's summary (stalls by reason, by opcode, the worst instructions) comes
      # back; the details and the per-instruction CSV (xz) travel in logs.tar.gz. PROFILE_KERNELS (a
      # regex of kernel names; default the forward kernels) and PROFILE_LAUNCHES (default 1) pick
      # others, e.g. 'decode_mma_kernel|combine_kernel' with 2 for a decode call's split and combine.
      ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
      stalls=dist/gpu/ncu_stalls.py; [ -f "$stalls" ] || stalls=crates/flashattn-bench/python/ncu_stalls.py
      IFS=';' read -r -a profile_shapes <<< "${PROFILE_SHAPES:-bf16 B8 H16/16 S2048x2048 D128}"
      for i in "${!profile_shapes[@]}"; do
        shape=${profile_shapes[$i]} rep="$out/profile-$i" start=$SECONDS
        "$ncu" --set full --import-source no --cache-control none --clock-control none \
          --kernel-name regex:"${PROFILE_KERNELS:-ws_kernel|fwd_kernel|fwd_tma_kernel}" --launch-skip 5 --launch-count "${PROFILE_LAUNCHES:-1}" -f -o "$rep" \
          "$bin/flashattn-bench" run --suite "${PROFILE_SUITES:-seed,long}" --shapes "$shape" --modes events \
          --iters 5 --baseline none --out "$out/profile-$i-bench.json" > "$out/profile-$i.log" 2>&1
        rc=$?
        "$ncu" --import "$rep.ncu-rep" --page details --print-details all > "$out/profile-$i-details.txt" 2>&1
        "$ncu" --import "$rep.ncu-rep" --page source --print-source sass --csv > "$out/profile-$i-source.csv" 2>&1
        stalls_file="$final/profile-$i-stalls.txt"
        python3 "$stalls" "$out/profile-$i-source.csv" > "$stalls_file" 2>&1
        note "profile $shape: ncu rc=$rc in $((SECONDS - start)) s; $(grep -m1 'warp-state samples' "$stalls_file")"
        sed -n '/^samples by stall reason/,/^$/p' "$stalls_file" | sed -n 2,6p | tee -a "$summary"
        xz -9 -f "$out/profile-$i-source.csv"; rm -f "$rep.ncu-rep"
      done ;;
    tune)
      # TUNE_SHAPES: shape keys (comma-separated; they contain spaces, which TUNE_ARGS would split).
      "$bin/flashattn-bench" tune ${TUNE_ARGS:---suite seed,long} "${tune_shapes[@]}" --out "$out/dispatch.tsv" > "$out/tune.log" 2>&1
      note "tune: rc=$?"; cp "$out/dispatch.tsv" "$final/" 2>/dev/null; grep -v "^#" "$out/dispatch.tsv" | cut -f2- | tee -a "$summary" ;;
    tuned-ab)
      # The table the tune step just wrote against the dispatcher (embedded tables, then the rule),
      # same run, AB_REPS times, on the tuned suites and shapes: which rows are worth keeping.
      if [ ! -s "$out/dispatch.tsv" ]; then note "tuned-ab: no $out/dispatch.tsv (run the tune step first)"; continue; fi
      for r in $(seq "${AB_REPS:-2}"); do
        for side in auto tuned; do
          table=(); [ $side = tuned ] && table=(env FLASHATTN_DISPATCH="$out/dispatch.tsv")
          "${table[@]}" "$bin/flashattn-bench" run ${TUNED_AB_ARGS:---suite seed,long --modes graph --iters 30} \
            "${tune_shapes[@]}" --baseline none --label flashattn --out "$out/tab-$side-$r.json" >> "$out/tuned-ab.log" 2>&1
        done
        "$bin/flashattn-report" compare "$out/tab-auto-$r.json" "$out/tab-tuned-$r.json" > "$out/tab-$r.txt" 2>&1
        note "tuned table vs dispatcher, repetition $r (new/old = tuned/dispatcher): $(tail -1 "$out/tab-$r.txt")"
        ratio_columns "$out/tab-$r.txt"
      done ;;
    gate)
      # The regression gate's own check: an unchanged rerun must pass, a one-warp build must fail.
      args="run --suite seed --modes graph --iters 60 --baseline none"
      "$bin/flashattn-bench" $args --out "$out/gate-a.json" > "$out/gate.log" 2>&1
      "$bin/flashattn-bench" $args --out "$out/gate-b.json" >> "$out/gate.log" 2>&1
      "$bin/flashattn-bench" $args --kernel sm80_f16_d64_m16n64w1s2 --label flashattn --out "$out/gate-slow.json" >> "$out/gate.log" 2>&1
      "$bin/flashattn-report" compare "$out/gate-a.json" "$out/gate-b.json" > "$out/gate-unchanged.txt" 2>&1
      note "gate unchanged rebuild: exit $? ($(tail -1 "$out/gate-unchanged.txt"))"
      "$bin/flashattn-report" compare "$out/gate-a.json" "$out/gate-slow.json" > "$out/gate-slow.txt" 2>&1
      note "gate one-warp build: exit $? ($(tail -1 "$out/gate-slow.txt"))" ;;
    host-ab)
      # Host cost per launch of another build (AB_OLD) against this one, HOST_AB_REPS (default 3)
      # alternating `flashattn-bench host` runs of each (HOST_AB_ARGS, default the seed suite),
      # bracketed by the launch-floor probe when dist/launch_floor is there; per shape and path,
      # each run's p50 and the median of the runs, old then new.
      old=$(old_bench) || { echo "$step: AB_OLD must name the other build of flashattn-bench" >&2; exit 1; }
      [ -x dist/launch_floor ] && dist/launch_floor > "$out/floor-before.txt" 2>&1
      for r in $(seq "${HOST_AB_REPS:-3}"); do
        for side in old new; do
          exe=$old; [ $side = new ] && exe="$bin/flashattn-bench"
          "$exe" host ${HOST_AB_ARGS:---suite seed} --out "$out/host-$side-$r.json" >> "$out/host-ab.log" 2>&1 \
            || note "host-ab: $side run $r failed"
        done
      done
      [ -x dist/launch_floor ] && dist/launch_floor > "$out/floor-after.txt" 2>&1
      python3 - "$out" "${HOST_AB_REPS:-3}" <<'PY' | tee -a "$summary"
import json, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
def p50s(side, r):
    try:
        results = json.load(open(f"{out}/host-{side}-{r}.json"))["results"]
    except (OSError, ValueError):
        return {}
    return {(json.dumps(x["shape"], sort_keys=True), x["path"]): ((x.get("summary") or {}).get("p50"), x.get("config") or "")
            for x in results}
runs = {side: [p50s(side, r) for r in range(1, reps + 1)] for side in ("old", "new")}
print("host-ab: p50 us per run, (median); old then new")
for key in runs["new"][0] or runs["old"][0]:
    shape = json.loads(key[0])
    name = f"{shape['dtype']} B{shape['batch']} H{shape['heads_q']} S{shape['seqlen_q']}{' causal' if shape['causal'] else ''}"
    cols = []
    for side in ("old", "new"):
        vals = [run[key][0] for run in runs[side] if key in run and run[key][0] is not None]
        cols.append(" ".join(f"{v:5.2f}" for v in vals) + (f" ({statistics.median(vals):5.2f})" if vals else " (-)"))
    config = next((run[key][1] for run in runs["new"] if key in run), "")
    print(f"    {name:26s} {key[1]:20s} old {cols[0]}  new {cols[1]}  {config}")
PY
      for f in floor-before floor-after; do
        [ -f "$out/$f.txt" ] && { echo "    $f: $(grep -E 'cudaLaunchKernelEx, 256 B args, 32' "$out/$f.txt" | tr -s ' ')"; } | tee -a "$summary"
      done ;;
    ab)
      # Same-run A/B against another build's flashattn-bench (AB_OLD): AB_REPS alternating runs
      # of each, every pair gated; pairs that disagree show drift between runs, not a change.
      # The second build of a pair runs on a GPU the first has warmed, so the order alternates
      # (old first in odd pairs, new first in even ones), and `flashattn-report ab` pools the
      # pairs into one verdict per shape: faster or slower only where the pairs agree on a change
      # beyond 1.5% (the most a build against itself read, pooled, was 1.1%).
      old=$(old_bench) || { echo "$step: AB_OLD must name the other build of flashattn-bench" >&2; exit 1; }
      for r in $(seq "${AB_REPS:-3}"); do
        order="old new"; [ $((r % 2)) = 0 ] && order="new old"
        for side in $order; do
          exe=$old; [ $side = new ] && exe="$bin/flashattn-bench"
          "$exe" run ${AB_ARGS:---suite seed --modes graph --iters 50} "${ab_shapes[@]}" --baseline none --label flashattn \
            --out "$out/ab-$side-$r.json" >> "$out/ab.log" 2>&1 || note "ab: $side run $r failed"
        done
        "$bin/flashattn-report" compare "$out/ab-old-$r.json" "$out/ab-new-$r.json" > "$out/ab-compare-$r.txt" 2>&1
        note "ab pair $r: compare exit $? ($(tail -1 "$out/ab-compare-$r.txt"))"
      done
      note "ab: new / old p50 per shape, one column per pair"
      files=(); for r in $(seq "${AB_REPS:-3}"); do files+=("$out/ab-compare-$r.txt"); done
      ratio_columns "${files[@]}"
      pairs=(); for r in $(seq "${AB_REPS:-3}"); do pairs+=("$out/ab-old-$r.json" "$out/ab-new-$r.json"); done
      "$bin/flashattn-report" ab "${pairs[@]}" > "$final/ab-pooled.txt" 2>&1
      note "ab pooled (rc=$?): $(tail -1 "$final/ab-pooled.txt")"
      grep -E " (faster|SLOWER)$" "$final/ab-pooled.txt" | sed 's/^/    /' | tee -a "$summary" ;;
    kernel-ab)
      # Same-run A/B of named configurations (KERNEL_AB, comma-separated) against the dispatcher's
      # choice on the shapes they run (KERNEL_AB_ARGS, AB_SHAPES), AB_REPS times: whether a table
      # row should move. As in ab, the order alternates (the dispatcher first in odd repetitions,
      # last in even ones) and `flashattn-report ab` pools each configuration's pairs.
      kab() {  # kab NAME [--kernel CONFIG]: one run into $out/kab-NAME-$r.json
        local name=$1; shift
        "$bin/flashattn-bench" run ${KERNEL_AB_ARGS:---suite long --modes graph --iters 20} "${ab_shapes[@]}" \
          --baseline none --label flashattn "$@" --out "$out/kab-$name-$r.json" >> "$out/kernel-ab.log" 2>&1
      }
      configs=(${KERNEL_AB//,/ })
      for r in $(seq "${AB_REPS:-2}"); do
        [ $((r % 2)) = 1 ] && kab auto
        for k in "${configs[@]}"; do kab "$k" --kernel "$k"; done
        [ $((r % 2)) = 0 ] && kab auto
        for k in "${configs[@]}"; do
          "$bin/flashattn-report" compare "$out/kab-auto-$r.json" "$out/kab-$k-$r.json" > "$out/kab-$k-$r.txt" 2>&1
          note "kernel-ab $k, repetition $r (new/old = named/dispatcher):"
          ratio_columns "$out/kab-$k-$r.txt"
        done
      done
      for k in "${configs[@]}"; do
        pairs=(); for r in $(seq "${AB_REPS:-2}"); do pairs+=("$out/kab-auto-$r.json" "$out/kab-$k-$r.json"); done
        "$bin/flashattn-report" ab "${pairs[@]}" > "$final/kernel-ab-pooled-$k.txt" 2>&1
        note "kernel-ab $k pooled (rc=$?): $(tail -1 "$final/kernel-ab-pooled-$k.txt")"
        grep -E " (faster|SLOWER)$" "$final/kernel-ab-pooled-$k.txt" | sed 's/^/    /' | tee -a "$summary"
      done ;;
    regression)
      # The regression gate against the stored baseline of this GPU, features off. GATE_SDPA=1
      # times SDPA's backends too, so that `compare` shows ours with the drift between the two
      # sessions (power state, host) divided out (the `/ baselines'` column, beside the verdicts;
      # the stored baseline has SDPA's timings).
      base="docs/benchmarks/baseline-$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' _).json"
      ours_only=(--baseline none); [ "${GATE_SDPA:-0}" = 1 ] && ours_only=()
      "$bin/flashattn-bench" run ${GATE_ARGS:---suite seed,long --modes graph --iters 50} "${ours_only[@]}" \
        --out "$out/gate.json" > "$out/gate-run.log" 2>&1
      "$bin/flashattn-report" compare --mode graph "$base" "$out/gate.json" > "$out/gate.txt" 2>&1
      note "regression gate vs $base: exit $? ($(tail -1 "$out/gate.txt"))" ;;
    bench)
      if [ -x "$bin/flashattn-bench" ]; then
        # A table the tune step just wrote takes effect without a rebuild (FLASHATTN_DISPATCH).
        if [ -s "$out/dispatch.tsv" ]; then export FLASHATTN_DISPATCH="$out/dispatch.tsv"; note "bench: using the tuned $out/dispatch.tsv"; fi
        # The run writes bench.json beside .csv, .md, .sdpa.json and .shapes.json; only the JSON
        # and the Markdown table go to $final (the rest travels in logs.tar.gz): a lent host
        # returns eight files, and the ones past that are lost.
        "$bin/flashattn-bench" ${BENCH_ARGS:-run --suite seed,long} --out "$out/bench.json" > "$out/bench.log" 2>&1
        note "bench: rc=$?"; tail -40 "$out/bench.log" | tee -a "$summary"
        for f in bench.json bench.md; do [ -f "$out/$f" ] && cp "$out/$f" "$final/"; done
      fi ;;
    candle)
      # flashattn-candle (scripts/candle-gpu-pack.sh): GPU tests and the llama_attention example.
      # They link libcuda and candle's CUDA libraries dynamically: the driver's libcuda from the
      # system path, cuBLAS/cuRAND/NVRTC/cudart 13 from PyTorch's wheels (TORCH_SITE overrides).
      # The pack as carried: dist/candle.tar.gz, or dist/candle.txz (the tests alone, repacked
      # with xz to fit the carry beside dist/gpu.txz; the example is then skipped).
      cbin=dist/candle/bin
      [ -d "$cbin" ] || { [ -f dist/candle.tar.gz ] && tar -xzf dist/candle.tar.gz -C dist; }
      [ -d "$cbin" ] || { [ -f dist/candle.txz ] && tar -xJf dist/candle.txz -C dist; }
      site=${TORCH_SITE:-$(ls -d /opt/torch/.venv/lib/python3*/site-packages 2>/dev/null | head -1)}
      clibs=$(ls -d "$site"/nvidia/*/lib 2>/dev/null | tr '\n' ':')
      (
        export LD_LIBRARY_PATH="$clibs${LD_LIBRARY_PATH:-}"
        ldd "$cbin/flashattn-candle--gpu" | grep -E 'cuda|cublas|curand|nvrtc' > "$out/candle-ldd.txt" 2>&1
        grep -q 'not found' "$out/candle-ldd.txt" && note "candle: missing libraries: $(grep 'not found' "$out/candle-ldd.txt" | tr -s ' \n' ' ')"
        start=$SECONDS
        "$cbin/flashattn-candle--gpu" --include-ignored --nocapture --test-threads=1 > "$out/candle-tests.log" 2>&1
        note "candle tests: rc=$? $(grep -E '^test result' "$out/candle-tests.log" | tail -1) ($((SECONDS - start))s)"
        grep -E '^(worst|misaligned|offset|backward|alibi on)' "$out/candle-tests.log" | sed 's/^/    /' | tee -a "$summary"
        grep -E 'FAILED|panicked' "$out/candle-tests.log" | head -10 | sed 's/^/    /' | tee -a "$summary"
        [ -x "$cbin/llama_attention" ] || { note "candle example: not in the carried pack, skipped"; exit 0; }
        i=0
        for args in "${CANDLE_EXAMPLE_ARGS:---seq 4096 --heads 32 --head-dim 128 --dtype bf16}" \
                    "--seq 4096 --heads 32 --kv-heads 8 --head-dim 128 --dtype bf16" \
                    "--seq 4096 --heads 32 --kv-heads 8 --head-dim 128 --dtype bf16 --window 1024"; do
          i=$((i + 1))
          "$cbin/llama_attention" $args > "$out/candle-example-$i.log" 2>&1
          note "candle example ($args): rc=$?"
          sed 's/^/    /' "$out/candle-example-$i.log" | tail -8 | tee -a "$summary"
        done
      ) ;;
    accuracy)
      # Issue 14's comparison: per feature, our error, the naive baseline's and SDPA's (given the
      # equivalent explicit mask) against the f64 reference. The raw inputs (~290 MiB) stay on the
      # host: only the table and sdpa_accuracy.json come back.
      py=${TORCH_PYTHON:-/opt/torch/.venv/bin/python3}
      [ -x "$py" ] || py=python3
      start=$SECONDS
      "$bin/flashattn-accuracy" ${ACCURACY_ARGS:-} --out "$out/acc" > "$out/accuracy.log" 2>&1
      rc=$?
      note "accuracy (ours vs f64 reference): rc=$rc in $((SECONDS - start)) s;" \
        "$(grep -E '^cases:' "$out/accuracy.log" | tail -1)"
      grep -E 'FAIL|error' "$out/accuracy.log" | head -10 | sed 's/^/    /' | tee -a "$summary"
      script=dist/gpu/sdpa_accuracy.py
      [ -f "$script" ] || script=crates/flashattn-bench/python/sdpa_accuracy.py
      start=$SECONDS
      PYTHONUNBUFFERED=1 "$py" "$script" --dir "$out/acc" --out "$final/sdpa_accuracy.json" \
        > "$out/sdpa_accuracy.log" 2>&1
      rc=$?
      note "accuracy vs SDPA ($py): rc=$rc in $((SECONDS - start)) s"
      sed -n '/^case /,/^$/p' "$out/sdpa_accuracy.log" | sed 's/^/    /' | tee -a "$summary"
      grep -E '^(summary|HONESTY|sdpa_accuracy.py:)' "$out/sdpa_accuracy.log" | head -10 \
        | tee -a "$summary"
      [ $rc -ne 0 ] && tail -5 "$out/sdpa_accuracy.log" | sed 's/^/    /' | tee -a "$summary"
      [ "${KEEP_WORK:-0}" = 1 ] || rm -f "$out"/acc/*.bin ;;
    power)
      # Power and clock beside each kernel: per shape of POWER_SHAPES (keys, comma-separated), ours
      # (POWER_KERNEL, default the dispatcher's) and then cuDNN's SDPA, each timed alone for
      # POWER_ITERS graph samples while nvidia-smi logs power, SM clock and the clock-event reasons
      # every 20 ms; per run, the medians over the samples taken while the GPU was busy. Whether a
      # launch sits at the power cap (then its speed is work per joule, not overlap).
      [ -n "${POWER_SHAPES:-}" ] || { note "power: set POWER_SHAPES"; continue; }
      py=${TORCH_PYTHON:-/opt/torch/.venv/bin/python3}; [ -x "$py" ] || py=python3
      script=dist/gpu/sdpa_baseline.py; [ -f "$script" ] || script=crates/flashattn-bench/python/sdpa_baseline.py
      # The instantaneous power where the driver has it (power.draw averages over about a second),
      # and the clock-event reasons under either of their names; the first set the driver takes.
      common=timestamp,power.draw.instant,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu
      for fields in $common,clocks_event_reasons.active $common,clocks_throttle_reasons.active $common \
                    ${common/.instant/},clocks_throttle_reasons.active ${common/.instant/}; do
        nvidia-smi --query-gpu=$fields --format=csv,noheader,nounits > /dev/null 2>&1 && break
      done
      echo "$fields" > "$out/power-fields.txt"
      nvidia-smi --query-gpu=$fields --format=csv,noheader,nounits -lms 20 > "$out/power.csv" 2> "$out/power-smi.err" &
      smi=$!
      mark() { echo "$(date '+%Y/%m/%d %H:%M:%S.%N' | cut -c1-23)|$*" >> "$out/power-marks.txt"; }
      sleep 2; mark idle-end
      kernel=(); [ -n "${POWER_KERNEL:-}" ] && kernel=(--kernel "$POWER_KERNEL" --label flashattn)
      IFS=, read -ra pshapes <<< "$POWER_SHAPES"
      for i in "${!pshapes[@]}"; do
        key=${pshapes[$i]}
        mark "start|ours|$key"
        "$bin/flashattn-bench" run --suite all --shapes "$key" --modes graph --iters "${POWER_ITERS:-300}" \
          --baseline none "${kernel[@]}" --out "$out/power-ours-$i.json" >> "$out/power.log" 2>&1
        mark "end|ours|$key"
        "$py" - "$script" "$key" "$out/power-shape-$i.json" <<'PY'
import json, os, sys
here = os.path.dirname(os.path.abspath(sys.argv[1]))
sys.path.insert(0, here)
from sdpa_baseline import shape_key
path = os.path.join(here, "suites.json")
suites = json.load(open(path if os.path.exists(path) else "crates/flashattn-bench/python/suites.json"))
suites["shapes"] = [e for e in suites["shapes"] if shape_key(e["shape"]) == sys.argv[2]][:1]
json.dump(suites, open(sys.argv[3], "w"))
PY
        mark "start|cudnn|$key"
        PYTHONUNBUFFERED=1 "$py" "$script" --shapes "$out/power-shape-$i.json" --modes graph --backends cudnn \
          --iters "${POWER_ITERS:-300}" --no-ceilings --out "$out/power-cudnn-$i.json" >> "$out/power.log" 2>&1
        mark "end|cudnn|$key"
      done
      sleep 1; kill $smi 2>/dev/null; wait $smi 2>/dev/null
      python3 - "$out" <<'PY' | tee -a "$summary"
import datetime, json, statistics, sys
out = sys.argv[1]
t = lambda s: datetime.datetime.strptime(s.strip()[:23], "%Y/%m/%d %H:%M:%S.%f")
rows = []
for line in open(f"{out}/power.csv"):
    f = [x.strip() for x in line.split(",")]
    try:
        rows.append((t(f[0]), float(f[1]), float(f[2]), float(f[3]), float(f[4]), float(f[5]),
                     int(f[6], 16) if len(f) > 6 and f[6].startswith("0x") else None))
    except (ValueError, IndexError):
        pass
marks = [l.rstrip("\n").split("|") for l in open(f"{out}/power-marks.txt")]
idle = [r for r in rows if r[0] <= t(marks[0][0])]
if idle:
    print(f"power: idle {statistics.median(r[1] for r in idle):.0f} W at {statistics.median(r[2] for r in idle):.0f} MHz")
print("power: run, median over its busy samples (utilization >= 90%) after the first second: W, SM MHz, mem MHz, deg C, samples; "
      "share of them with the power cap (SW 0x4 / HW 0x8 / brake 0x80) or thermal (0x20, 0x40) reasons; p50 ms; "
      "mJ per call (mean W x p50)")
starts, run = {}, -1
for stamp, *what in marks[1:]:
    kind, impl, key = what
    if kind == "start":
        starts[(impl, key)] = t(stamp)
        run += impl == "ours"   # each shape's runs: ours, then cuDNN (files power-IMPL-RUN.json)
        continue
    busy = [r for r in rows if starts[(impl, key)] <= r[0] <= t(stamp) and r[5] >= 90]
    # The first second of a run climbs to the cap (and the averaged reading lags): steady state after it.
    busy = [r for r in busy if (r[0] - busy[0][0]).total_seconds() >= 1] or busy
    if not busy:
        print(f"    {key:40s} {impl:6s} no busy samples"); continue
    med = lambda j: statistics.median(r[j] for r in busy)
    reasons = [r[6] for r in busy if r[6] is not None]
    cap = sum(1 for x in reasons if x & 0x8c) / len(reasons) if reasons else float("nan")
    hot = sum(1 for x in reasons if x & 0x60) / len(reasons) if reasons else float("nan")
    p50 = None
    try:
        res = json.load(open(f"{out}/power-{impl}-{run}.json"))["results"]
        samples = sorted(next(x for x in res if x.get("samples_ms"))["samples_ms"])
        p50 = samples[len(samples) // 2]
    except (OSError, ValueError, StopIteration, KeyError):
        pass
    watts = statistics.mean(r[1] for r in busy)   # energy a call: mean power x p50
    p50s = f"{p50:.4f} ms {watts * p50:.1f} mJ" if p50 else "-"
    print(f"    {key:40s} {impl:6s} {med(1):5.0f} W (mean {watts:4.0f}) {med(2):5.0f} {med(3):5.0f} {med(4):3.0f} C n={len(busy):4d} "
          f"cap {cap:4.0%} thermal {hot:4.0%}  {p50s}")
PY
      ;;
    selftest)
      "$bin/flashattn-selftest" 2>&1 | tee "$out/selftest.log" | tee -a "$summary" ;;
  esac
done
# Not the inputs (*.bin) nor the ab step's unpacked old bench (tens of MB: the bundle would not come back).
tar -czf "$final/logs.tar.gz" --exclude='*.bin' --exclude=ab-old-bench -C "$out" . 2>/dev/null
for f in fuzz.json dispatch.tsv; do [ -f "$out/$f" ] && cp "$out/$f" "$final/"; done
[ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$out"
echo "==== summary ===="
cat "$summary"
