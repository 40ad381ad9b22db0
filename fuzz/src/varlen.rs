//! Packed variable-length batches on the GPU against the CPU reference: [`VarlenCase`] (a
//! dense [`Case`] for the dtype, head dim, heads, masks, score modifiers, layouts, inputs and
//! kernel choice, plus per-sequence query and key lengths and optional `seqused_k`),
//! [`varlen_strategy`] to draw them (random length mixes with empty sequences and the awkward
//! lengths 1, 7, 113, 239, 1023, ...), and [`run_varlen_case`] to run and judge one.
//!
//! Outputs are poisoned (NaN) before the launch; O's gaps and the rows after the packed tensor,
//! and LSE values after `[heads_q, total_q]`, hold sentinels the kernel must leave alone. Keys
//! past a sequence's `seqused_k` (cache slots never written) hold NaN in K and V: a kernel that
//! lets one into a sum, even times a zero probability, fails.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream};
use flashattn::{DType, Strides, Tensor, TensorMut};
use flashattn_ref as reference;
use half::{bf16, f16};
use proptest::prelude::*;
use proptest::sample::select;
use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::harness::{
    Case, Layout, O_TAIL, Outcome, POISON_BITS, Role, SENTINEL_BITS, TestElement,
    addressed_elements, fail_on_stray_writes, fail_unless_repeated, holds_bits, len_of, make_input,
    r, reference_problem,
};
use crate::strategies::{CaseSpace, SpaceError, seqlen_strategy};

/// Lengths worth a sequence of their own: one row, a partial fragment, odd tails inside and
/// past the first tiles, and the tile edges.
pub const AWKWARD_LENS: [usize; 13] = [1, 7, 113, 239, 1023, 15, 64, 65, 127, 128, 129, 255, 257];

/// Sentinel f32 values after the LSE's `heads_q * total_q` entries.
const LSE_TAIL: usize = 16;
const LSE_SENTINEL: f32 = 1234.5;

/// One variable-length case.
#[derive(Clone, Debug, PartialEq)]
pub struct VarlenCase {
    /// Everything but the lengths: `params.batch` is the number of sequences and
    /// `params.seqlen_q` / `seqlen_k` the max lengths passed to the launch (at least the
    /// longest sequence's). Layouts address the packed tensors (batch broadcast reads as BSHD).
    pub base: Case,
    /// Query rows per sequence (0 allowed).
    pub lens_q: Vec<usize>,
    /// Key rows per sequence (0 allowed).
    pub lens_k: Vec<usize>,
    /// Keys present per sequence (each at most its key rows), or `None`.
    pub seqused_k: Option<Vec<usize>>,
}

impl VarlenCase {
    /// Rows of packed Q and K.
    pub fn totals(&self) -> (usize, usize) {
        (self.lens_q.iter().sum(), self.lens_k.iter().sum())
    }

    /// The layouts of packed Q, K, V and O.
    pub fn layouts(&self) -> [Layout; 4] {
        self.base.layouts().map(|l| match l {
            Layout::BatchBroadcast => Layout::Bshd,
            l => l,
        })
    }

    /// One line that rebuilds this case.
    pub fn reproducer(&self) -> String {
        format!(
            "lens_q={:?} lens_k={:?} seqused_k={:?} | {}",
            self.lens_q,
            self.lens_k,
            self.seqused_k,
            self.base.reproducer()
        )
    }
}

/// NaN in every element of the key rows sequence `b` holds past `used[b]` (packed rows
/// `cu_k[b] + used[b] .. cu_k[b + 1]`, every head).
fn poison_unused_keys<T: TestElement>(
    buf: &mut [T],
    s: Strides,
    heads: usize,
    head_dim: usize,
    cu_k: &[usize],
    used: &[usize],
) {
    for (b, &u) in used.iter().enumerate() {
        for row in cu_k[b] + u..cu_k[b + 1] {
            for h in 0..heads {
                let start = (row as i64 * s.row + h as i64 * s.head) as usize;
                buf[start..start + head_dim].fill(T::from_bits(POISON_BITS));
            }
        }
    }
}

fn prefix(lens: &[usize]) -> Vec<usize> {
    let mut cu = vec![0];
    cu.extend(lens.iter().scan(0, |acc, &l| {
        *acc += l;
        Some(*acc)
    }));
    cu
}

/// Cases drawn from `space`: the dense strategy's dtype, head dim, heads, masks, score
/// modifiers, layouts, inputs and kernel, with 1 to 8 sequences whose query and key lengths are
/// 0 (one time in ten), awkward, or any `seqlen` draw, keys as many as queries half the time,
/// `seqused_k` three times in ten, and max lengths above the longest sequence one time in five.
/// Heads, then lengths, are cut down to `space.max_work` summed over the sequences.
pub fn varlen_strategy(space: &CaseSpace) -> Result<BoxedStrategy<VarlenCase>, SpaceError> {
    let max = space.max_seqlen;
    let awkward: Vec<usize> = AWKWARD_LENS.iter().copied().filter(|&l| l <= max).collect();
    let len = move || {
        prop_oneof![
            1 => Just(0usize),
            4 => select(awkward.clone()),
            5 => seqlen_strategy(max),
        ]
    };
    let sequence = (len(), proptest::option::weighted(0.5, len()));
    let max_work = space.max_work;
    Ok((
        space.strategy()?,
        proptest::collection::vec(sequence, 1..=8),
        proptest::option::weighted(0.3, proptest::collection::vec(0.0f64..=1.2, 8)),
        proptest::option::weighted(0.2, (0..=64usize, 0..=64usize)),
    )
        .prop_map(move |(mut base, seqs, used, slack)| {
            let mut lens_q: Vec<usize> = seqs.iter().map(|s| s.0).collect();
            let mut lens_k: Vec<usize> = seqs.iter().map(|s| s.1.unwrap_or(s.0)).collect();
            let p = &mut base.params;
            // Heads first, then every length by one factor, until the CPU reference's work
            // (summed over sequences) fits.
            let work = |lq: &[usize], lk: &[usize], heads: usize| -> u64 {
                let pairs: u64 = lq.iter().zip(lk).map(|(&a, &b)| (a * b) as u64).sum();
                pairs * (heads * p.head_dim) as u64
            };
            while work(&lens_q, &lens_k, p.heads_q) > max_work && p.heads_q > 1 {
                if p.heads_q > p.heads_kv {
                    p.heads_q = (p.heads_q / p.heads_kv / 2).max(1) * p.heads_kv;
                } else {
                    p.heads_kv = (p.heads_kv / 2).max(1);
                    p.heads_q = p.heads_kv;
                }
            }
            let w = work(&lens_q, &lens_k, p.heads_q);
            if w > max_work {
                // Rounded down (a non-empty sequence keeps a row), with 1% to spare for that.
                let f = 0.99 * (max_work as f64 / w as f64).sqrt();
                for l in lens_q.iter_mut().chain(lens_k.iter_mut()) {
                    *l = ((*l as f64 * f) as usize).clamp(1.min(*l), *l);
                }
            }
            // At least one query row and one key row: the launch needs total_q, total_k >= 1.
            if lens_q.iter().all(|&l| l == 0) {
                lens_q[0] = 1;
            }
            if lens_k.iter().all(|&l| l == 0) {
                lens_k[0] = 1;
            }
            let seqused_k = used.map(|fracs| {
                lens_k
                    .iter()
                    .zip(fracs)
                    .map(|(&l, f)| ((l as f64 * f).floor() as usize).min(l))
                    .collect()
            });
            let (extra_q, extra_k) = slack.unwrap_or((0, 0));
            p.batch = lens_q.len();
            p.seqlen_q = lens_q.iter().max().copied().unwrap_or(1).max(1) + extra_q;
            p.seqlen_k = lens_k.iter().max().copied().unwrap_or(1).max(1) + extra_k;
            VarlenCase {
                base,
                lens_q,
                lens_k,
                seqused_k,
            }
        })
        .boxed())
}

/// Run `case` on `stream` and check it against the varlen reference. Errors are launch-layer
/// errors; a wrong answer (or a write outside O's shape or past LSE's end) is an `Ok` whose
/// `check.pass` is false.
pub fn run_varlen_case(
    stream: &Arc<CudaStream>,
    case: &VarlenCase,
) -> Result<Outcome, flashattn::Error> {
    match case.base.dtype {
        DType::F16 => run_typed::<f16>(stream, case),
        DType::BF16 => run_typed::<bf16>(stream, case),
    }
}

fn run_typed<T: TestElement>(
    stream: &Arc<CudaStream>,
    case: &VarlenCase,
) -> Result<Outcome, flashattn::Error> {
    let start = Instant::now();
    let c = &case.base;
    let p = &c.params;
    let d = p.head_dim;
    let (total_q, total_k) = case.totals();
    let [ql, kl, vl, ol] = case.layouts();
    let packed = |l: Layout, rows, heads| Strides {
        batch: 0,
        ..l.strides(rows, heads, d)
    };
    let (qs, ks, vs, os) = (
        packed(ql, total_q, p.heads_q),
        packed(kl, total_k, p.heads_kv),
        packed(vl, total_k, p.heads_kv),
        packed(ol, total_q, p.heads_q),
    );
    let mut rng = StdRng::seed_from_u64(c.seed);
    let q_dims = [1, total_q, p.heads_q, d];
    let kv_dims = [1, total_k, p.heads_kv, d];
    let q = make_input::<T>(&mut rng, qs, q_dims, c.inputs, Role::Query);
    let mut k = make_input::<T>(&mut rng, ks, kv_dims, c.inputs, Role::Key);
    let mut v = make_input::<T>(&mut rng, vs, kv_dims, c.inputs, Role::Value);
    let (cu_q, cu_k) = (prefix(&case.lens_q), prefix(&case.lens_k));
    if let Some(used) = &case.seqused_k {
        poison_unused_keys(&mut k, ks, p.heads_kv, d, &cu_k, used);
        poison_unused_keys(&mut v, vs, p.heads_kv, d, &cu_k, used);
    }
    let addressed = addressed_elements(os, q_dims, len_of(os, q_dims) + O_TAIL);
    let o_init: Vec<T> = addressed
        .iter()
        .map(|&a| T::from_bits(if a { POISON_BITS } else { SENTINEL_BITS }))
        .collect();
    let lse_len = p.heads_q * total_q;
    let mut lse_init = vec![f32::NAN; lse_len];
    lse_init.extend([LSE_SENTINEL; LSE_TAIL]);

    let as_i32 = |v: &[usize]| v.iter().map(|&x| x as i32).collect::<Vec<i32>>();
    let cu_q_dev = stream.clone_htod(&as_i32(&cu_q))?;
    let cu_k_dev = stream.clone_htod(&as_i32(&cu_k))?;
    let used_dev = case
        .seqused_k
        .as_ref()
        .map(|u| stream.clone_htod(&as_i32(u)))
        .transpose()?;
    let q_dev = stream.clone_htod(&q)?;
    let k_dev = stream.clone_htod(&k)?;
    let v_dev = stream.clone_htod(&v)?;
    let mut o_dev = stream.clone_htod(&o_init)?;
    let mut lse_dev = stream.clone_htod(&lse_init)?;
    let slopes = c.alibi.map(|a| a.values(p.heads_q));
    let sinks = c.sinks.map(|s| s.values(p.heads_q));
    let slopes_dev = slopes.as_ref().map(|s| stream.clone_htod(s)).transpose()?;
    let sinks_dev = sinks.as_ref().map(|s| stream.clone_htod(s)).transpose()?;
    let seqs = flashattn::Varlen {
        cu_seqlens_q: &cu_q_dev,
        cu_seqlens_k: &cu_k_dev,
        seqused_k: used_dev.as_ref(),
        total_q,
        total_k,
    };
    let call = |o_dev: &mut CudaSlice<T>, lse_dev: &mut CudaSlice<f32>| {
        flashattn::forward_varlen(
            stream,
            p,
            &seqs,
            Tensor::new(&q_dev, qs),
            Tensor::new(&k_dev, ks),
            Tensor::new(&v_dev, vs),
            TensorMut::new(o_dev, os),
            c.with_lse.then_some(lse_dev),
            flashattn::HeadVectors {
                alibi_slopes: slopes_dev.as_ref(),
                sinks: sinks_dev.as_ref(),
            },
        )
    };
    let info = call(&mut o_dev, &mut lse_dev)?;
    stream.synchronize()?;
    let o_host: Vec<T> = stream.clone_dtoh(&o_dev)?;
    let lse_host: Vec<f32> = stream.clone_dtoh(&lse_dev)?;
    // The same call again, O and LSE poisoned again: it must give the same bits (README,
    // "Determinism").
    stream.memcpy_htod(&o_init, &mut o_dev)?;
    stream.memcpy_htod(&lse_init, &mut lse_dev)?;
    call(&mut o_dev, &mut lse_dev)?;
    stream.synchronize()?;
    let repeats = holds_bits(stream, &o_dev, &lse_dev, &o_host, &lse_host)?;

    let problem = reference_problem(p);
    let seqs = reference::Varlen {
        cu_seqlens_q: &cu_q,
        cu_seqlens_k: &cu_k,
        seqused_k: case.seqused_k.as_deref(),
    };
    let heads = reference::HeadParams {
        alibi_slopes: slopes.as_deref(),
        sinks: sinks.as_deref(),
    };
    let inputs = (r(&q, qs), r(&k, ks), r(&v, vs));
    let want = reference::reference_varlen(&problem, &seqs, inputs.0, inputs.1, inputs.2, heads);
    let naive = reference::naive_same_precision_varlen(
        &problem, &seqs, inputs.0, inputs.1, inputs.2, heads,
    );
    let got = reference::gather_bshd(r(&o_host, os), 1, total_q, p.heads_q, d);
    let lse = c.with_lse.then_some(&lse_host[..lse_len]);
    let mut check = reference::check(&seqs.packed_problem(&problem), &got, lse, &want, &naive);
    fail_on_stray_writes(&mut check, &addressed, &o_host);
    if lse_host[lse_len..].iter().any(|&x| x != LSE_SENTINEL) {
        check.pass = false;
        check.ratio = f64::INFINITY;
        check.error = Some(format!(
            "LSE values past [heads_q, total_q] = {lse_len} were overwritten"
        ));
    }
    fail_unless_repeated(&mut check, repeats);
    Ok(Outcome {
        check,
        config: info.config,
        schedule: info.schedule,
        feed: info.feed,
        seconds: start.elapsed().as_secs_f64(),
        o_digest: crate::harness::digest(&o_host),
    })
}
