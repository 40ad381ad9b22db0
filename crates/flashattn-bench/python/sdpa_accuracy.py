#!/usr/bin/env python3
"""PyTorch SDPA's accuracy on the inputs of `flashattn-accuracy` (issue 14).

`flashattn-accuracy --out DIR` (fuzz/src/bin) runs each mask and score modifier on our kernel,
judges it against the f64 CPU reference with the project's rule and writes the inputs and
outputs to DIR (format: fuzz/src/accuracy.rs, and "encoding" in DIR/cases.json). This script
gives the same inputs to torch.nn.functional.scaled_dot_product_attention with the equivalent
explicit additive mask, in the input dtype (SDPA wants the mask's dtype to match the query's):

  - causal and sliding windows: -inf outside the band. Key j of query i is visible iff
    j - (i + diag) lies in [-window_left, right], right = 0 when causal, else window_right
    (None: unbounded); diag = Sk - Sq (bottom-right, FlashAttention's) or 0 (top-left,
    PyTorch's is_causal);
  - ALiBi: + (-slope[h] * |i + diag - j|), FlashAttention-2's sign and distance;
  - sinks: one extra key with K = 0 and V = 0 whose bias is the sink logit. Its score is then
    exactly the sink and its value adds nothing to O, so it joins the softmax denominator only,
    which is the reference's definition;
  - GQA: K and V repeated per query head (what enable_gqa computes; not every backend takes
    enable_gqa together with a mask);
  - softcap: no SDPA equivalent (it acts on the scores before the mask); only ours is reported.

Each case runs under each backend (math, efficient, flash, cudnn; those that refuse are
recorded as refusals) and with no backend forced (the default dispatch). The verdict is the
project's rule on O, with the bound the Rust side computed from the naive same-precision
baseline: pass iff SDPA's O has no NaN and max |O - ref| <= 2 * naive error + atol.

Two checks keep the comparison honest: the same mask in float64 (math backend) must reproduce
the f64 reference to ~1e-12 (else the emulation, not SDPA, would be measured), and our error
is recomputed here from DIR's files and must equal what the Rust side wrote.

    python3 sdpa_accuracy.py --dir DIR --out sdpa_accuracy.json     # on the GPU
    python3 sdpa_accuracy.py --dir DIR --device cpu                  # CPU self-check
    python3 sdpa_accuracy.py --dir DIR --check-files                 # no torch needed

Exit status: 0 done; 1 an honesty check failed (emulation error, file mismatch); 2 bad
arguments, unreadable DIR or no torch.
"""

import argparse
import array
import json
import math
import os
import struct
import sys
import time
import warnings
from datetime import datetime, timezone

from attention_mask import additive_mask

SCHEMA = 1
TOOL = "sdpa_accuracy.py"
BACKENDS = ("math", "efficient", "flash", "cudnn")
BACKEND_MEMBERS = {
    "math": "MATH",
    "efficient": "EFFICIENT_ATTENTION",
    "flash": "FLASH_ATTENTION",
    "cudnn": "CUDNN_ATTENTION",
}
# The f64 emulation of the mask must match the f64 reference this closely; a convention error
# (alignment, ALiBi sign, sink) shows up as 1e-3 or more.
EMULATION_TOL = 1e-9


def log(msg):
    print(msg, flush=True)


def as_float(x):
    """JSON numbers, plus the strings Rust writes for non-finite values ("inf", "NaN")."""
    if x is None:
        return float("nan")
    return float(x)


def load_doc(directory):
    with open(os.path.join(directory, "cases.json")) as f:
        doc = json.load(f)
    if doc.get("schema") != SCHEMA:
        raise ValueError("cases.json schema {} (this script reads {})".format(
            doc.get("schema"), SCHEMA))
    return doc


def shapes(case):
    b, sq, sk = case["batch"], case["seqlen_q"], case["seqlen_k"]
    hq, hkv, d = case["heads_q"], case["heads_kv"], case["head_dim"]
    return {
        "q": (b, sq, hq, d),
        "k": (b, sk, hkv, d),
        "v": (b, sk, hkv, d),
        "ours": (b, sq, hq, d),
        "ref": (b, sq, hq, d),
    }


def elem_bytes(what):
    return 8 if what == "ref" else 2


def visible_right(case):
    return 0 if case["causal"] else case["window_right"]


def row_bias(case, h, i):
    """Row i of head h of the additive mask as a list (plus the sink's entry, if any), in
    pure Python: the definition that the vectorised mask_f64 is checked against."""
    diag = case["diagonal"]
    left, right = case["window_left"], visible_right(case)
    slopes = case["alibi_slopes"]
    row = []
    for j in range(case["seqlen_k"]):
        rel = j - (i + diag)
        if (left is not None and rel < -left) or (right is not None and rel > right):
            row.append(float("-inf"))
        else:
            row.append(-slopes[h] * abs(rel) if slopes else 0.0)
    if case["sinks"]:
        row.append(case["sinks"][h])
    return row


def decode_bits(raw, dtype):
    """u16 little-endian bits of f16 / bf16 -> Python floats, without torch."""
    bits = array.array("H")
    bits.frombytes(raw)
    if sys.byteorder != "little":
        bits.byteswap()
    if dtype == "f16":
        return list(struct.unpack("<{}e".format(len(bits)), bits.tobytes()))
    wide = array.array("I", (b << 16 for b in bits))
    return list(struct.unpack("={}f".format(len(wide)), wide.tobytes()))


def read_f64(path):
    a = array.array("d")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    if sys.byteorder != "little":
        a.byteswap()
    return a


def check_files(directory, doc, spot_rows=3):
    """Torch-free: every file has its shape's size, the reference is finite, our error
    recomputed from the files equals the Rust side's, and a few rows of the reference follow
    from Q, K, V and row_bias() in pure-Python f64. Returns a list of problems."""
    problems = []
    for case in doc["cases"]:
        name = case["name"]
        for what, shape in shapes(case).items():
            fname = case["files"].get(what)
            if fname is None:
                if what != "ours" or case.get("ours") and "o_err" in case["ours"]:
                    problems.append("{}: no {} file".format(name, what))
                continue
            want = math.prod(shape) * elem_bytes(what)
            have = os.path.getsize(os.path.join(directory, fname))
            if have != want:
                problems.append("{}: {} has {} bytes, want {}".format(name, fname, have, want))
        if any(p.startswith(name + ":") for p in problems):
            continue
        ref = read_f64(os.path.join(directory, case["files"]["ref"]))
        if not all(math.isfinite(x) for x in ref):
            problems.append("{}: reference has non-finite values".format(name))
        if "ours" in case["files"] and case.get("ours") and "o_err" in case["ours"]:
            with open(os.path.join(directory, case["files"]["ours"]), "rb") as f:
                ours = decode_bits(f.read(), case["dtype"])
            err = max_abs_err_py(ours, ref)
            if err != as_float(case["ours"]["o_err"]):
                problems.append("{}: our error from the files {!r} != cases.json {!r}".format(
                    name, err, case["ours"]["o_err"]))
        problems += spot_check_rows(directory, case, ref, spot_rows)
    return problems


def max_abs_err_py(got, ref):
    worst = 0.0
    for g, w in zip(got, ref):
        if math.isnan(g):
            return float("inf")
        worst = max(worst, abs(g - w))
    return worst


def spot_check_rows(directory, case, ref, rows):
    """A few query rows of the reference recomputed in pure Python from the mask definition
    (the emulation's conventions checked without torch)."""
    if rows <= 0:
        return []
    b, sq, sk = case["batch"], case["seqlen_q"], case["seqlen_k"]
    hq, hkv, d = case["heads_q"], case["heads_kv"], case["head_dim"]
    if case["softcap"] is not None:
        return []

    def load(what):
        with open(os.path.join(directory, case["files"][what]), "rb") as f:
            return decode_bits(f.read(), case["dtype"])

    q, k, v = load("q"), load("k"), load("v")
    problems = []
    picks = [(0, 0, 0), (b - 1, hq - 1, sq - 1), (b // 2, hq // 2, sq // 3)][:rows]
    for bi, h, i in picks:
        kh = h // (hq // hkv)
        bias = row_bias(case, h, i)
        qrow = q[((bi * sq + i) * hq + h) * d:][:d]
        scores = []
        for j in range(sk):
            if bias[j] == float("-inf"):
                scores.append(float("-inf"))
                continue
            krow = k[((bi * sk + j) * hkv + kh) * d:][:d]
            scores.append(case["scale"] * math.fsum(x * y for x, y in zip(qrow, krow)) + bias[j])
        if case["sinks"]:
            scores.append(bias[sk])  # K = 0: the score is the bias alone
        m = max(scores)
        weights = [math.exp(s - m) if s != float("-inf") else 0.0 for s in scores]
        total = math.fsum(weights)
        o = [0.0] * d
        for j in range(sk):  # the sink's V is 0: it adds nothing here
            if weights[j]:
                vrow = v[((bi * sk + j) * hkv + kh) * d:][:d]
                for x in range(d):
                    o[x] += weights[j] * vrow[x]
        base = ((bi * sq + i) * hq + h) * d
        err = max(abs(o[x] / total - ref[base + x]) for x in range(d))
        if not err <= 1e-9:
            problems.append("{}: row (b={}, h={}, i={}) from the mask definition is {:.3e} off "
                            "the reference".format(case["name"], bi, h, i, err))
    return problems


# ---------------------------------------------------------------------------------------------
# torch
# ---------------------------------------------------------------------------------------------


def torch_dtype(torch, name):
    return {"f16": torch.float16, "bf16": torch.bfloat16}[name]


def load_bits(torch, path, dtype, shape, device):
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    if sys.byteorder != "little":
        raise SystemExit("sdpa_accuracy.py: reads little-endian files on little-endian hosts only")
    t = torch.frombuffer(raw, dtype=torch.int16).view(dtype).reshape(shape)
    return t.to(device)


def load_ref(torch, path, shape, device):
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    return torch.frombuffer(raw, dtype=torch.float64).reshape(shape).to(device)


def mask_f64(torch, case, device):
    """The additive mask [1, Hq, Sq, Sk (+1 with sinks)] in float64, or None when the case
    has no mask or bias at all."""
    sq, sk, hq = case["seqlen_q"], case["seqlen_k"], case["heads_q"]
    left, right = case["window_left"], visible_right(case)
    if left is None and right is None and not case["alibi_slopes"] and not case["sinks"]:
        return None
    bias = additive_mask(torch, sq, sk, case["diagonal"], left, right, case["alibi_slopes"],
                         device, torch.float64).expand(hq, sq, sk).contiguous()
    if case["sinks"]:
        sinks = torch.tensor(case["sinks"], dtype=torch.float64, device=device)
        bias = torch.cat([bias, sinks[:, None, None].expand(hq, sq, 1)], dim=-1)
    return bias[None]


def sdpa_inputs(torch, q, k, v, case):
    """BSHD -> BHSD, K and V repeated per query head, plus the sink's zero key."""
    group = case["heads_q"] // case["heads_kv"]
    q = q.transpose(1, 2)
    k = k.transpose(1, 2).repeat_interleave(group, dim=1)
    v = v.transpose(1, 2).repeat_interleave(group, dim=1)
    if case["sinks"]:
        zero = torch.zeros_like(k[:, :, :1])
        k = torch.cat([k, zero], dim=2)
        v = torch.cat([v, zero], dim=2)
    return q.contiguous(), k.contiguous(), v.contiguous()


def variants(torch, case, mask):
    """(label, keyword arguments) ways to give SDPA this case: the explicit mask always (None
    for a case without one), and the built-in causal forms where they are exact, since only
    those let the flash and cuDNN backends run."""
    out = [("mask" if mask is not None else "none", {"attn_mask": mask})]
    plain_causal = (case["causal"] and case["window_left"] is None and not case["alibi_slopes"]
                    and not case["sinks"])
    if plain_causal and case["diagonal"] == 0:
        out.append(("is_causal", {"is_causal": True}))
    elif plain_causal:
        try:
            from torch.nn.attention.bias import causal_lower_right
            out.append(("causal_lower_right",
                        {"attn_mask": causal_lower_right(case["seqlen_q"], case["seqlen_k"])}))
        except ImportError:
            pass
    return out


def error_text(e):
    lines = str(e).strip().splitlines()
    text = "{}: {}".format(type(e).__name__, lines[0] if lines else "")
    return text[:300]


def run_sdpa(torch, q, k, v, kwargs, scale, backend):
    import torch.nn.functional as F
    from contextlib import nullcontext

    if backend is None:
        ctx = nullcontext()
    else:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        member = getattr(SDPBackend, BACKEND_MEMBERS[backend], None)
        if member is None:
            raise RuntimeError("this torch has no SDPBackend.{}".format(BACKEND_MEMBERS[backend]))
        ctx = sdpa_kernel([member])
    with torch.no_grad(), ctx, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = F.scaled_dot_product_attention(q, k, v, scale=scale, **kwargs)
    if out.is_cuda:
        torch.cuda.synchronize()
    return out


def max_abs_err(torch, got_bhsd, ref_bshd):
    """The rule's O error: NaN anywhere is a hard failure (infinite error)."""
    g = got_bhsd.transpose(1, 2).to(torch.float64)
    if torch.isnan(g).any():
        return float("inf")
    return (g - ref_bshd).abs().max().item()


def rule_pass(err, bound):
    return math.isfinite(err) and err <= bound


def run_case(torch, directory, case, device):
    """Everything about one case; SDPA results per (variant, backend)."""
    files, sh = case["files"], shapes(case)
    dtype = torch_dtype(torch, case["dtype"])
    path = lambda what: os.path.join(directory, files[what])
    q, k, v = (load_bits(torch, path(w), dtype, sh[w], device) for w in ("q", "k", "v"))
    ref = load_ref(torch, path("ref"), sh["ref"], device)
    ours = case.get("ours") or {}
    bound = as_float(case["o_bound"])
    res = {
        "name": case["name"],
        "feature": case["feature"],
        "dtype": case["dtype"],
        "shape": "B{} Sq{} Sk{} H{}/{} D{}".format(
            case["batch"], case["seqlen_q"], case["seqlen_k"], case["heads_q"], case["heads_kv"],
            case["head_dim"]),
        "naive_err": as_float(case["naive_o_err"]),
        "bound": bound,
        "ours_err": as_float(ours["o_err"]) if "o_err" in ours else None,
        "ours_lse_err": as_float(ours["lse_err"]) if "lse_err" in ours else None,
        "ours_pass": ours.get("pass"),
        "ours_kernel": ours.get("kernel"),
        "ours_error": ours.get("error"),
        "sdpa_expressible": case["sdpa_expressible"],
        "runs": [],
    }
    if "ours" in files:
        got = load_bits(torch, path("ours"), dtype, sh["ours"], device)
        res["ours_err_recomputed"] = max_abs_err(torch, got.transpose(1, 2), ref)
    if not case["sdpa_expressible"]:
        res["sdpa_note"] = "SDPA has no softcap"
        return res

    m64 = mask_f64(torch, case, device)
    if m64 is not None:
        # The vectorised mask against its pure-Python definition, on a few rows.
        last = (case["heads_q"] - 1, case["seqlen_q"] - 1)
        for h, i in [(0, 0), last, (0, case["seqlen_q"] // 2)]:
            row = torch.tensor(row_bias(case, h, i), dtype=torch.float64)
            if not torch.equal(m64[0, h, i].cpu(), row):
                raise AssertionError("{}: mask row (h={}, i={}) differs from row_bias".format(
                    case["name"], h, i))
    q64, k64, v64 = sdpa_inputs(torch, q.double(), k.double(), v.double(), case)
    try:
        emu = run_sdpa(torch, q64, k64, v64, {"attn_mask": m64}, case["scale"], "math")
        res["emulation_err_f64"] = max_abs_err(torch, emu, ref)
    except Exception as e:  # noqa: BLE001 - recorded, and fails the honesty check
        res["emulation_err_f64"] = float("inf")
        res["emulation_error"] = error_text(e)
    del q64, k64, v64

    qs, ks, vs = sdpa_inputs(torch, q, k, v, case)
    mask = None if m64 is None else m64.to(dtype)
    for label, kwargs in variants(torch, case, mask):
        default_out = None
        outs = {}
        for backend in (None,) + BACKENDS:
            run = {"variant": label, "backend": backend or "default"}
            try:
                out = run_sdpa(torch, qs, ks, vs, kwargs, case["scale"], backend)
                run["err"] = max_abs_err(torch, out, ref)
                run["pass"] = rule_pass(run["err"], bound)
                if backend is None:
                    default_out = out
                else:
                    outs[backend] = out
            except Exception as e:  # noqa: BLE001 - a backend refusing is a result
                run["error"] = error_text(e)
            res["runs"].append(run)
        # Which backend the default dispatch picked: the one whose output is bit-identical.
        if default_out is not None:
            same = [b for b, o in outs.items() if torch.equal(o, default_out)]
            for run in res["runs"]:
                if run["variant"] == label and run["backend"] == "default":
                    run["same_as"] = same
        del outs, default_out
    head = next((r for r in res["runs"] if r["backend"] == "default" and "err" in r), None)
    if head is not None:
        res["sdpa_err"] = head["err"]
        res["sdpa_pass"] = head["pass"]
        res["sdpa_backend"] = "default({})".format("/".join(head.get("same_as", [])) or "?")
        if res["ours_err"] is not None and head["err"] > 0:
            res["ours_over_sdpa"] = res["ours_err"] / head["err"]
    return res


def strict_json(x):
    """Non-finite floats as strings, as the Rust side writes them: the file stays strict JSON."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {k: strict_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [strict_json(v) for v in x]
    return x


def fmt(x, spec=".2e"):
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "pass" if x else "FAIL"
    return format(x, spec)


def print_table(results):
    cols = ("case", "ours err", "naive err", "bound", "SDPA err", "ours/SDPA", "ours", "SDPA",
            "SDPA backend")
    log("{:<26} {:>9} {:>9} {:>9} {:>9} {:>9} {:>5} {:>5}  {}".format(*cols))
    for r in results:
        log("{:<26} {:>9} {:>9} {:>9} {:>9} {:>9} {:>5} {:>5}  {}".format(
            r["name"], fmt(r["ours_err"]), fmt(r["naive_err"]), fmt(r["bound"]),
            fmt(r.get("sdpa_err")), fmt(r.get("ours_over_sdpa"), ".3f"), fmt(r["ours_pass"]),
            fmt(r.get("sdpa_pass")), r.get("sdpa_backend", r.get("sdpa_note", "-"))))
    log("")
    log("per backend (err, or refused); emulation = the same mask in float64 vs the reference")
    for r in results:
        if not r["runs"]:
            continue
        parts = []
        for run in r["runs"]:
            key = "{}/{}".format(run["variant"], run["backend"])
            if "err" in run:
                flag = "" if run["pass"] else "(FAIL)"
                parts.append("{}={}{}".format(key, fmt(run["err"]), flag))
            else:
                parts.append("{}=refused".format(key))
        log("  {:<24} emulation={} {}".format(
            r["name"], fmt(r.get("emulation_err_f64")), " ".join(parts)))
    refusals = {}
    for r in results:
        for run in r["runs"]:
            if "error" in run:
                where = "{}:{}/{}".format(r["name"], run["variant"], run["backend"])
                refusals.setdefault(run["error"], []).append(where)
    for text, where in refusals.items():
        log("  refused ({} runs, e.g. {}): {}".format(len(where), where[0], text))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", required=True, help="what flashattn-accuracy --out wrote")
    p.add_argument("--out", help="write the JSON summary here")
    p.add_argument("--device", default="cuda",
                   help="torch device (default: %(default)s; cpu for a self-check)")
    p.add_argument("--case", default="",
                   help="only cases whose name contains one of these (comma list)")
    p.add_argument("--check-files", action="store_true",
                   help="only the torch-free checks of DIR (sizes, our error, reference rows)")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    try:
        doc = load_doc(args.dir)
    except (OSError, ValueError) as e:
        log("sdpa_accuracy.py: {}".format(e))
        return 2
    wanted = [w for w in args.case.split(",") if w]
    cases = [c for c in doc["cases"] if not wanted or any(w in c["name"] for w in wanted)]
    doc = dict(doc, cases=cases)
    if args.check_files:
        problems = check_files(args.dir, doc)
        for p in problems:
            log("problem: " + p)
        log("check-files: {} cases, {} problems".format(len(cases), len(problems)))
        return 1 if problems else 0
    try:
        import torch
    except ImportError as e:
        log("sdpa_accuracy.py: no torch ({}); --check-files needs none".format(e))
        return 2
    device = torch.device(args.device)
    device_name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    log("torch {} on {} ({}); {} cases from {} (written on {})".format(
        torch.__version__, device_name, args.device, len(cases), args.dir, doc.get("device")))
    start = time.time()
    results, honesty = [], []
    for case in cases:
        t = time.time()
        r = run_case(torch, args.dir, case, device)
        r["seconds"] = time.time() - t
        results.append(r)
        emu = r.get("emulation_err_f64")
        if emu is not None and not emu <= EMULATION_TOL:
            honesty.append("{}: the float64 mask is {} off the reference ({})".format(
                r["name"], emu, r.get("emulation_error", "a convention differs")))
        recomputed = r.get("ours_err_recomputed")
        if recomputed is not None and r["ours_err"] is not None and recomputed != r["ours_err"]:
            honesty.append("{}: our error recomputed {!r} != cases.json {!r}".format(
                r["name"], r["ours_err_recomputed"], r["ours_err"]))
        log("[{}/{}] {} ({:.1f} s)".format(len(results), len(cases), r["name"], r["seconds"]))
        if device.type == "cuda":
            torch.cuda.empty_cache()
    log("")
    print_table(results)
    for h in honesty:
        log("HONESTY CHECK FAILED: " + h)
    ours_run = [r for r in results if r["ours_pass"] is not None]
    sdpa_run = [r for r in results if "sdpa_pass" in r]
    ratios = [r["ours_over_sdpa"] for r in results if "ours_over_sdpa" in r]
    log("summary: ours passes {}/{}, SDPA (default dispatch, explicit mask) passes {}/{}; "
        "ours/SDPA error: worst {}, median {}; emulation and file checks {}".format(
            sum(r["ours_pass"] for r in ours_run), len(ours_run),
            sum(r["sdpa_pass"] for r in sdpa_run), len(sdpa_run),
            fmt(max(ratios) if ratios else None, ".3f"),
            fmt(sorted(ratios)[len(ratios) // 2] if ratios else None, ".3f"),
            "failed" if honesty else "ok"))
    if args.out:
        report = {
            "schema": SCHEMA,
            "tool": TOOL,
            "created_utc": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "cudnn": (torch.backends.cudnn.version()
                      if torch.backends.cudnn.is_available() else None),
            "device": device_name,
            "written_on": doc.get("device"),
            "atol": doc["atol"],
            "rule": doc.get("rule"),
            "seconds": time.time() - start,
            "honesty_failures": honesty,
            "cases": results,
        }
        with open(args.out, "w") as f:
            json.dump(strict_json(report), f, indent=1, default=str, allow_nan=False)
            f.write("\n")
    return 1 if honesty else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
