#!/usr/bin/env python3
"""PyTorch SDPA baseline for flashattn-rs.

Times torch.nn.functional.scaled_dot_product_attention with each of the flash,
cuDNN and memory-efficient backends on the benchmark shapes and writes a report
in the flashattn-bench JSON schema (schema_version 1, see ../SCHEMA.md), so the
Rust tooling (`flashattn-report table/compare/chart/merge`) reads it directly.

The report holds raw samples and metadata only. Everything derived from them
(summaries, TFLOP/s, fractions of peak) is computed in Rust, for every producer
alike: `flashattn-bench run` when it merges this file, `flashattn-report` when
it reads it.

Shapes come from a suite file written by the Rust side, so both harnesses
measure exactly the same problems:

    flashattn-report suites --json > suites.json              # every suite
    flashattn-report suites --json --suite sweep > sweep.json # just one

python/suites.json (the default) is that file for all suites; a Rust unit test
keeps it current.

Timing modes (each sample is the time of one SDPA call, in ms):
  events  CUDA events around every call, same inputs each time (hot L2).
  cold    CUDA events around every call, rotating over enough input sets that
          their total size exceeds twice the L2 cache, so inputs come from DRAM.
  graph   R calls captured in one CUDA graph; each replay is timed with events
          and divided by R. No launch gaps, so this is closest to kernel time.

Also measures hardware ceilings once (bf16 8192^3 matmul, 1 GiB device copy).
Unsupported backend/shape combinations are recorded as errors, not fatal.

Example:
    PYTHONUNBUFFERED=1 python3 sdpa_baseline.py --out sdpa.json --modes events,graph
    flashattn-report table sdpa.json

`--self-test` checks the torch-free helpers (shape keys, cold-mode input sets,
the suite file) and needs no GPU.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
from datetime import datetime, timezone

from attention_mask import additive_mask

SCHEMA_VERSION = 1
TOOL = "sdpa_baseline.py"
MODES = ("events", "cold", "graph")
# Short CLI name -> (implementation name in the report, SDPBackend member).
BACKENDS = {
    "flash": ("sdpa-flash", "FLASH_ATTENTION"),
    "cudnn": ("sdpa-cudnn", "CUDNN_ATTENTION"),
    "efficient": ("sdpa-efficient", "EFFICIENT_ATTENTION"),
}
DEFAULT_L2_BYTES = 50 * 1024 * 1024
HERE = os.path.dirname(os.path.abspath(__file__))


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Torch-free helpers; --self-test checks them.
# ---------------------------------------------------------------------------

ELEM_BYTES = {"f16": 2, "bf16": 2}


def shape_key(shape):
    """The shape's name in logs, as src/report.rs spells it."""
    k = "{} B{} H{}/{} S{}x{} D{}".format(
        shape["dtype"], shape["batch"], shape["heads_q"], shape["heads_kv"],
        shape["seqlen_q"], shape["seqlen_k"], shape["head_dim"])
    if shape["causal"]:
        k += " causal"
    mods = shape.get("mods", {})
    if "window_left" in mods or "window_right" in mods:
        side = lambda w: "inf" if w is None else str(w)
        k += " window{}/{}".format(side(mods.get("window_left")), side(mods.get("window_right")))
    if "softcap" in mods:
        k += " softcap{}".format(mods["softcap"])
    if mods.get("alibi"):
        k += " alibi"
    if mods.get("sinks"):
        k += " sinks"
    # Decode shapes: the baselines read the contiguous cache whatever ours is paged as.
    if shape.get("decode"):
        k += " decode"
    if shape.get("page_size"):
        k += " page{}".format(shape["page_size"])
    if shape.get("heads_major"):
        k += " heads-major"
    if shape.get("varlen"):
        k += " varlen{}".format(sum(shape["varlen"]))
    return k


def alibi_slopes(heads):
    """The geometric ALiBi slopes the suites use (src/report.rs ScoreMods::alibi_slope)."""
    return [2.0 ** (-8.0 * (h + 1) / heads) for h in range(heads)]


def make_result(suite, shape, implementation, mode, samples_ms=None, error=None):
    """A result of the schema's raw fields; Rust derives the rest."""
    return {
        "suite": suite,
        "shape": shape,
        "implementation": implementation,
        "mode": mode,
        "samples_ms": list(samples_ms or []),
        "error": error,
    }


def utc_now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def load_shapes(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise SystemExit("{}: schema_version {!r} is not {}".format(
            path, doc.get("schema_version"), SCHEMA_VERSION))
    return [(e["suite"], e["shape"]) for e in doc["shapes"]]


def write_report(report, path):
    """Write atomically so an interrupted run never leaves half a file."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def self_test():
    def sh(dtype, b, h, s, d, causal, hkv=None, sk=None):
        return {"dtype": dtype, "batch": b, "heads_q": h, "heads_kv": hkv or h,
                "seqlen_q": s, "seqlen_k": sk or s, "head_dim": d, "causal": causal}

    assert shape_key(sh("f16", 4, 16, 512, 64, True)) == "f16 B4 H16/16 S512x512 D64 causal"
    assert shape_key(sh("bf16", 1, 32, 128, 128, False, 8, 256)) == "bf16 B1 H32/8 S128x256 D128"
    r = make_result("seed", sh("bf16", 1, 1, 1024, 64, False), "x", "events", [2.0, 1.0, 3.0])
    assert sorted(r) == ["error", "implementation", "mode", "samples_ms", "shape", "suite"], r
    s512 = sh("f16", 1, 8, 512, 64, False)
    assert input_set_bytes(s512) == 3 * 512 * 8 * 64 * 2
    # 1.5 MiB per set: exceeding 2 * 50 MiB takes 67 sets; memory caps it; never below 2.
    assert cold_set_count(s512, 50 << 20, 80 << 30) == 67
    assert cold_set_count(s512, 50 << 20, 1 << 20) == 2
    assert cold_set_count(sh("bf16", 2, 16, 8192, 128, False), 50 << 20, 80 << 30) == 2
    shapes = load_shapes(os.path.join(HERE, "suites.json"))
    assert len(shapes) == 165 and len({shape_key(s) for _, s in shapes}) == 165
    v = dict(sh("bf16", 3, 2, 7, 64, True), varlen=[3, 1, 7])
    assert shape_key(v) == "bf16 B3 H2/2 S7x7 D64 causal varlen11"
    w = dict(sh("bf16", 2, 16, 8192, 128, True), mods={"window_left": 1024})
    assert shape_key(w) == "bf16 B2 H16/16 S8192x8192 D128 causal window1024/inf"
    dec = dict(sh("bf16", 8, 32, 1, 128, False, 8, 4096), decode=True, page_size=16,
               heads_major=True)
    assert shape_key(dec) == "bf16 B8 H32/8 S1x4096 D128 decode page16 heads-major"
    # Rust spells the same shape the same way (suites.json holds it).
    assert shape_key(dec) in {shape_key(s) for _, s in shapes}
    gqa = dict(sh("bf16", 8, 32, 490, 128, True, 8), varlen=[71, 490, 253, 56, 22, 351, 181, 421])
    assert shape_key(gqa) == "bf16 B8 H32/8 S490x490 D128 causal varlen1845"
    assert shape_key(gqa) in {shape_key(s) for _, s in shapes}
    # --warm-ms: no calls at 0; at least one synchronized batch, and whole batches, otherwise.
    calls, syncs = [], []
    fake_torch = type("T", (), {"cuda": type("C", (), {"synchronize": staticmethod(lambda: syncs.append(1))})})
    keep_warm(fake_torch, lambda: calls.append(1), 0.0)
    assert not calls and not syncs
    keep_warm(fake_torch, lambda: calls.append(1), 5.0, batch=3)
    assert len(calls) >= 3 and len(calls) == 3 * len(syncs)
    print("self-test passed")


# ---------------------------------------------------------------------------
# GPU measurement. torch is imported lazily so the helpers above work without it.
# ---------------------------------------------------------------------------


def query_nvidia_smi(torch, index):
    """Driver version and current SM/memory clocks; Nones if unavailable."""
    ident = str(index)
    try:
        uuid = str(torch.cuda.get_device_properties(index).uuid)
        if uuid:
            # The uuid survives CUDA_VISIBLE_DEVICES remapping; an index may not.
            ident = uuid if uuid.startswith("GPU-") else "GPU-" + uuid
    except Exception:
        pass
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version,clocks.sm,clocks.mem",
             "--format=csv,noheader,nounits", "-i", ident],
            capture_output=True, text=True, timeout=20, check=True).stdout.strip().splitlines()[0]
        driver, sm, mem = [x.strip() for x in out.split(",")]

        def as_int(x):
            try:
                return int(float(x))
            except ValueError:
                return None

        return driver or None, as_int(sm), as_int(mem)
    except Exception as e:  # no nvidia-smi, or an unexpected format
        log("nvidia-smi query failed ({}); driver and clocks left empty".format(e))
        return None, None, None


def git_commit():
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip() or None
    except Exception:
        return None


def time_loop_ms(torch, fn, reps):
    """Mean ms of `reps` back-to-back calls, timed by one pair of events."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / reps


def best_ms(torch, fn):
    """Best of 5 trials of 10 calls, after 3 untimed ones (cuBLAS heuristics,
    clock ramp-up): the sustained peak at the current clocks."""
    time_loop_ms(torch, fn, 3)
    return min(time_loop_ms(torch, fn, 10) for _ in range(5))


def matmul_tflops(torch, device, n=8192):
    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    c = torch.empty(n, n, device=device, dtype=torch.bfloat16)
    ms = best_ms(torch, lambda: torch.mm(a, b, out=c))
    return 2.0 * n ** 3 / (ms * 1e-3) / 1e12


def copy_tbps(torch, device, nbytes=1 << 30):
    src = torch.ones(nbytes, device=device, dtype=torch.uint8)
    dst = torch.empty_like(src)
    ms = best_ms(torch, lambda: dst.copy_(src))
    # A copy reads and writes every byte.
    return 2.0 * nbytes / (ms * 1e-3) / 1e12


def measure_ceilings(torch, device):
    ceilings = {"bf16_matmul_tflops": matmul_tflops(torch, device), "copy_tbps": copy_tbps(torch, device)}
    torch.cuda.empty_cache()
    return ceilings


def make_inputs(torch, shape, device):
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[shape["dtype"]]
    b, d = shape["batch"], shape["head_dim"]
    q = torch.randn(b, shape["heads_q"], shape["seqlen_q"], d, device=device, dtype=dtype)
    k = torch.randn(b, shape["heads_kv"], shape["seqlen_k"], d, device=device, dtype=dtype)
    v = torch.randn(b, shape["heads_kv"], shape["seqlen_k"], d, device=device, dtype=dtype)
    return q, k, v


def explicit_mask(torch, shape, device, dtype):
    """The shape's window and ALiBi as one additive SDPA mask [1 or H, Sq, Sk]
    (0 where visible, -inf where masked, plus the ALiBi bias), or None."""
    mods = shape.get("mods", {})
    windowed = "window_left" in mods or "window_right" in mods
    if not (windowed or mods.get("alibi")):
        return None
    right = 0 if shape["causal"] else mods.get("window_right")
    slopes = alibi_slopes(shape["heads_q"]) if mods.get("alibi") else None
    sq, sk = shape["seqlen_q"], shape["seqlen_k"]
    mask = additive_mask(torch, sq, sk, sk - sq, mods.get("window_left"), right, slopes, device,
                         torch.float32)
    return mask.to(dtype)


def make_sdpa(torch, shape, device):
    """An SDPA call with the shape's masking and head grouping baked in."""
    import torch.nn.functional as F

    kwargs = {}
    mods = shape.get("mods", {})
    if "softcap" in mods or mods.get("sinks"):
        def unsupported(q, k, v):
            raise NotImplementedError("SDPA has no equivalent of softcap or attention sinks")
        return unsupported
    if shape["heads_q"] != shape["heads_kv"]:
        kwargs["enable_gqa"] = True
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[shape["dtype"]]
    mask = explicit_mask(torch, shape, device, dtype)
    if mask is not None:
        kwargs["attn_mask"] = mask
    elif shape.get("varlen") and not shape["causal"]:
        # A packed batch's dense equivalent: the sequences padded to the longest, padding keys
        # masked out per sequence ([B, 1, 1, Sk] boolean). A causal one needs no mask of its
        # own: padding sits after every real row's diagonal, so is_causal below is exactly the
        # padded mask for every real row, and it lets each backend (flash included) run.
        lens = torch.tensor(shape["varlen"], device=device)
        keys = torch.arange(shape["seqlen_k"], device=device)
        kwargs["attn_mask"] = (keys[None, :] < lens[:, None])[:, None, None, :]
    elif shape["causal"]:
        if shape["seqlen_q"] == shape["seqlen_k"]:
            # PyTorch's is_causal is top-left aligned, which is the same as our
            # bottom-right convention when the lengths match.
            kwargs["is_causal"] = True
        else:
            from torch.nn.attention.bias import causal_lower_right
            kwargs["attn_mask"] = causal_lower_right(shape["seqlen_q"], shape["seqlen_k"])

    def call(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, **kwargs)

    return call


def keep_warm(torch, fn, warm_ms, batch=20):
    """Call fn in batches for at least warm_ms of wall time (as the Rust side's --warm-ms):
    samples from a GPU settled at its power cap rather than climbing to it."""
    import time
    end = time.perf_counter() + warm_ms / 1e3
    while time.perf_counter() < end:
        for _ in range(batch):
            fn()
        torch.cuda.synchronize()


def time_events(torch, call, input_sets, iters, warmup, warm_ms=0.0):
    """Events around every call; rotating over input_sets (one set = hot)."""
    for i in range(max(warmup, len(input_sets))):
        call(*input_sets[i % len(input_sets)])
    torch.cuda.synchronize()
    keep_warm(torch, lambda: call(*input_sets[0]), warm_ms)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        q, k, v = input_sets[i % len(input_sets)]
        starts[i].record()
        call(q, k, v)
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def time_graph(torch, call, inputs, iters, warmup, calls_per_graph, warm_ms=0.0):
    """Per-call ms from replays of a graph holding `calls_per_graph` calls."""
    q, k, v = inputs
    # Warm up on a side stream, as graph capture requires, so lazy
    # initialisation (workspaces, cuDNN plans) happens before capture.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            call(q, k, v)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = [call(q, k, v) for _ in range(calls_per_graph)]
    for _ in range(max(1, warmup // calls_per_graph)):
        graph.replay()
    torch.cuda.synchronize()
    keep_warm(torch, graph.replay, warm_ms, batch=1)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        starts[i].record()
        graph.replay()
        ends[i].record()
    torch.cuda.synchronize()
    samples = [s.elapsed_time(e) / calls_per_graph for s, e in zip(starts, ends)]
    del outs, graph
    return samples


def input_set_bytes(shape):
    """Bytes of one (Q, K, V) input set."""
    eb = ELEM_BYTES[shape["dtype"]]
    q = shape["batch"] * shape["heads_q"] * shape["seqlen_q"] * shape["head_dim"]
    kv = shape["batch"] * shape["heads_kv"] * shape["seqlen_k"] * shape["head_dim"]
    return (q + 2 * kv) * eb


def cold_set_count(shape, l2_bytes, free_bytes):
    """Input sets whose total exceeds 2x L2, capped to half the free memory
    (but never below 2, so consecutive calls never share inputs)."""
    set_bytes = input_set_bytes(shape)
    want = 2 * l2_bytes // set_bytes + 1
    fit = int(0.5 * free_bytes) // set_bytes
    return max(2, min(want, fit))


def error_text(e):
    text = "{}: {}".format(type(e).__name__, str(e).strip())
    return text[:600]


def run_shape(torch, args, suite, shape, device, l2_bytes):
    """All requested backends and modes for one shape; returns results."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    results = []
    key = shape_key(shape)
    if shape["dtype"] not in ELEM_BYTES:
        for name in args.backends:
            for mode in args.modes:
                results.append(make_result(suite, shape, BACKENDS[name][0], mode,
                                           error="dtype {} not benchmarked".format(shape["dtype"])))
        return results

    torch.manual_seed(0)
    try:
        hot = make_inputs(torch, shape, device)
    except Exception as e:  # typically out of memory
        for name in args.backends:
            for mode in args.modes:
                results.append(make_result(suite, shape, BACKENDS[name][0], mode, error=error_text(e)))
        return results
    try:
        call = make_sdpa(torch, shape, device)
    except Exception as e:  # an explicit mask that does not fit in memory
        for name in args.backends:
            for mode in args.modes:
                results.append(make_result(suite, shape, BACKENDS[name][0], mode, error=error_text(e)))
        return results

    for name in args.backends:
        impl, member = BACKENDS[name]
        backend = getattr(SDPBackend, member)
        with torch.no_grad(), sdpa_kernel([backend]):
            # Probe once eagerly: an unsupported shape fails here, not in the
            # middle of a graph capture.
            try:
                call(*hot)
                torch.cuda.synchronize()
            except Exception as e:
                log("  {:<15} {}: unsupported: {}".format(impl, key, error_text(e).splitlines()[0]))
                for mode in args.modes:
                    results.append(make_result(suite, shape, impl, mode, error=error_text(e)))
                continue
            for mode in args.modes:
                try:
                    if mode == "events":
                        samples = time_events(torch, call, [hot], args.iters, args.warmup, args.warm_ms)
                    elif mode == "cold":
                        free, _ = torch.cuda.mem_get_info(device)
                        n_sets = cold_set_count(shape, l2_bytes, free)
                        sets = [hot] + [make_inputs(torch, shape, device) for _ in range(n_sets - 1)]
                        try:
                            samples = time_events(torch, call, sets, args.iters, args.warmup, args.warm_ms)
                        finally:
                            del sets
                    else:
                        samples = time_graph(torch, call, hot, args.iters, args.warmup, args.graph_calls, args.warm_ms)
                    res = make_result(suite, shape, impl, mode, samples)
                    log("  {:<15} {:<6} {}: {} samples".format(impl, mode, key, len(samples)))
                except Exception as e:
                    log("  {:<15} {:<6} {}: failed: {}".format(impl, mode, key, error_text(e).splitlines()[0]))
                    res = make_result(suite, shape, impl, mode, error=error_text(e))
                    torch.cuda.synchronize()
                results.append(res)
    del hot
    torch.cuda.empty_cache()
    return results


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite-file", "--shapes", dest="suite_file", default=os.path.join(HERE, "suites.json"),
                   help="shapes JSON from `flashattn-report suites --json` (default: %(default)s)")
    p.add_argument("--modes", default="events,cold,graph", help="comma list of events,cold,graph (default: %(default)s)")
    p.add_argument("--backends", default="flash,cudnn,efficient", help="comma list of flash,cudnn,efficient (default: %(default)s)")
    p.add_argument("--iters", type=int, default=100, help="timed samples per (shape, backend, mode) (default: %(default)s)")
    p.add_argument("--warmup", type=int, default=10, help="untimed calls before timing (default: %(default)s)")
    p.add_argument("--warm-ms", type=float, default=0.0,
                   help="keep calling each (shape, backend, mode) this many ms before its samples: a GPU "
                        "settled at its power cap (default: %(default)s, the count-based warm-up only)")
    p.add_argument("--graph-calls", type=int, default=20, help="calls captured per CUDA graph in graph mode (default: %(default)s)")
    p.add_argument("--l2-mb", type=float, default=None, help="L2 size for cold mode (default: from the device, else 50)")
    p.add_argument("--device", type=int, default=0, help="CUDA device index (default: %(default)s)")
    p.add_argument("--no-ceilings", action="store_true", help="skip the matmul/copy ceiling measurement")
    p.add_argument("--commit", default=None, help="commit to record (default: git rev-parse HEAD, if available)")
    p.add_argument("--out", default="sdpa_baseline.json", help="report path (default: %(default)s)")
    p.add_argument("--self-test", action="store_true", help="check the torch-free helpers and exit")
    args = p.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    args.backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    bad = [m for m in args.modes if m not in MODES] + [b for b in args.backends if b not in BACKENDS]
    if bad:
        p.error("unknown mode/backend: {}".format(", ".join(bad)))
    if args.iters < 1 or args.graph_calls < 1 or args.warmup < 0 or not args.warm_ms >= 0:
        p.error("--iters and --graph-calls must be >= 1, --warmup and --warm-ms >= 0")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.self_test:
        self_test()
        return 0

    import torch

    if not torch.cuda.is_available():
        log("CUDA is not available; nothing to measure")
        return 2
    shapes = load_shapes(args.suite_file)
    torch.cuda.set_device(args.device)
    device = torch.device("cuda", args.device)
    props = torch.cuda.get_device_properties(args.device)
    if args.l2_mb is not None:
        l2_bytes = int(args.l2_mb * 1024 * 1024)
    else:
        l2_bytes = int(getattr(props, "L2_cache_size", 0) or DEFAULT_L2_BYTES)
    log("device {} (sm {}.{}, {} SMs, L2 {:.0f} MiB), torch {}, {} shapes from {}".format(
        props.name, props.major, props.minor, props.multi_processor_count, l2_bytes / 2 ** 20,
        torch.__version__, len(shapes), args.suite_file))

    ceilings = None
    if not args.no_ceilings:
        ceilings = measure_ceilings(torch, device)
        log("ceilings: bf16 matmul {:.1f} TFLOP/s, copy {:.3f} TB/s".format(
            ceilings["bf16_matmul_tflops"], ceilings["copy_tbps"]))

    report = {
        "schema_version": SCHEMA_VERSION,
        "tool": TOOL,
        "created_utc": utc_now(),
        "commit": args.commit or git_commit(),
        "device": {
            "name": props.name,
            "compute_capability": "{}.{}".format(props.major, props.minor),
            "sm_count": props.multi_processor_count,
            "driver": None,
            "sm_clock_mhz": None,
            "mem_clock_mhz": None,
        },
        "ceilings": ceilings,
        "command": " ".join(shlex.quote(a) for a in [sys.executable] + sys.argv),
        "results": [],
    }

    # A paged or heads-major decode shape's baselines read the contiguous cache in SDPA's own
    # layout: the same calls as for its contiguous twin, measured once and filed under each.
    measured = {}
    for i, (suite, shape) in enumerate(shapes):
        log("[{}/{}] {} ({})".format(i + 1, len(shapes), shape_key(shape), suite))
        twin = dict(shape, page_size=None, heads_major=False)
        twin_key = shape_key(twin)
        if twin_key not in measured:
            measured[twin_key] = run_shape(torch, args, suite, twin, device, l2_bytes)
        report["results"].extend(dict(r, shape=shape) for r in measured[twin_key])
        # Save after every shape so a crash or interrupt keeps what was measured.
        write_report(report, args.out)

    # Clocks sampled right after the last measurement, while the GPU is still
    # under load, describe the conditions of the run better than idle clocks.
    driver, sm_clock, mem_clock = query_nvidia_smi(torch, args.device)
    report["device"].update({"driver": driver, "sm_clock_mhz": sm_clock, "mem_clock_mhz": mem_clock})
    write_report(report, args.out)
    log("wrote {} ({} results); `flashattn-report table {}` renders it".format(
        args.out, len(report["results"]), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
