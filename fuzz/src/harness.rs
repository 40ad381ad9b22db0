//! Run one attention case on the GPU and judge it against the CPU reference with the
//! project's one tolerance rule. Shared by the fixed correctness grid and the fuzzer.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream};
use flashattn::{AttentionParams, DType, KernelConfig, Strides, Tensor, TensorMut};
use flashattn_ref as reference;
use half::{bf16, f16};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Normal};

/// How a tensor is laid out in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Contiguous `[B, S, H, D]`.
    Bshd,
    /// Contiguous `[B, H, S, D]`.
    Bhsd,
    /// `[B, S, H, D]` with gaps after each head and each row (multiples of 8 elements, so the
    /// rows stay 16-byte aligned). Gaps hold NaN: a kernel that reads them poisons its output.
    /// In O the gaps hold a sentinel that the kernel must leave alone.
    Padded { head_gap: usize, row_gap: usize },
    /// `[S, H, D]` shared by every batch entry: batch stride 0 (one K/V for a batch of
    /// queries). Inputs only: an output with a zero stride would overlap itself.
    BatchBroadcast,
}

impl Layout {
    /// Element strides of a `[B, seqlen, heads, d]` tensor in this layout.
    pub fn strides(self, seqlen: usize, heads: usize, d: usize) -> Strides {
        match self {
            Layout::Bshd => Strides::bshd(seqlen, heads, d),
            Layout::Bhsd => Strides::bhsd(seqlen, heads, d),
            Layout::BatchBroadcast => Strides {
                batch: 0,
                ..Strides::bshd(seqlen, heads, d)
            },
            Layout::Padded { head_gap, row_gap } => {
                let head = (d + head_gap) as i64;
                let row = head * heads as i64 + row_gap as i64;
                Strides {
                    batch: row * seqlen as i64,
                    row,
                    head,
                }
            }
        }
    }
}

/// What the input values look like.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Inputs {
    /// i.i.d. normal with this standard deviation.
    Normal { std: f32 },
    /// Normal, but every 7th query row scaled by `factor`: scores that overflow a naive exp.
    LargeRows { std: f32, factor: f32 },
    /// Every Q row constant: all scores of a row tie.
    ConstantRows,
    /// Keys duplicated in pairs: each row's maximum is attained by (at least) two keys.
    TiedMax { std: f32 },
    /// Scores that drift along the keys: key `j`'s score is `per_key * j` (raw units) plus the
    /// dot product of the other components (normal, std 1). Negative `per_key` makes each key tile
    /// of the kernels' walk (last tile first) raise its rows' maxima, by as much per tile as
    /// `per_key` times its width.
    Drift { per_key: f32 },
}

/// A per-head f32 vector (ALiBi slopes, attention sinks) as a rule of the head index, so a
/// case stays a handful of numbers whatever its head count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HeadVector {
    /// `first * ratio^h`: ALiBi's geometric slopes when `first = ratio = 2^(-8 / heads)`.
    Geometric { first: f32, ratio: f32 },
    /// `lo + (hi - lo) * u_h` with `u_h` a fixed hash of `h` in [0, 1): varied per head.
    Spread { lo: f32, hi: f32 },
    /// The same value for every head.
    Constant(f32),
}

impl HeadVector {
    /// ALiBi's own slopes for `heads` heads (BLOOM, MPT): `2^(-8 (h + 1) / heads)`.
    pub fn alibi(heads: usize) -> Self {
        let r = 2f32.powf(-8.0 / heads.max(1) as f32);
        HeadVector::Geometric { first: r, ratio: r }
    }

    /// The values for heads `0..heads`.
    pub fn values(&self, heads: usize) -> Vec<f32> {
        (0..heads)
            .map(|h| match *self {
                HeadVector::Geometric { first, ratio } => first * ratio.powi(h as i32),
                HeadVector::Spread { lo, hi } => {
                    // splitmix64 of h: deterministic and different for neighbouring heads.
                    let mut z = (h as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
                    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                    let u = ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32;
                    lo + (hi - lo) * u
                }
                HeadVector::Constant(c) => c,
            })
            .collect()
    }
}

/// One test case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Element type.
    pub dtype: DType,
    /// Sizes, mask, scale and kernel choice.
    pub params: AttentionParams,
    /// Layout of Q (and of O unless `o_layout` says otherwise).
    pub q_layout: Layout,
    /// Layout of K (and of V unless `v_layout` says otherwise).
    pub kv_layout: Layout,
    /// V's layout when it differs from K's.
    pub v_layout: Option<Layout>,
    /// O's layout when it differs from Q's.
    pub o_layout: Option<Layout>,
    /// Input distribution.
    pub inputs: Inputs,
    /// Seed for the inputs.
    pub seed: u64,
    /// Also produce and check the LSE.
    pub with_lse: bool,
    /// ALiBi slopes, per head (`None`: no ALiBi).
    pub alibi: Option<HeadVector>,
    /// Attention sinks, per head (`None`: no sinks).
    pub sinks: Option<HeadVector>,
    /// Launch with a zeroed workspace (`flashattn::forward_with_workspace`: a walk may split its
    /// last tiles across SMs), twice: the case then also fails unless the second call, on the
    /// workspace as the first left it, repeats the first's O and LSE bit for bit.
    pub workspace: bool,
}

impl Case {
    /// Plain case: BSHD layouts, unit normal inputs, LSE on.
    pub fn new(dtype: DType, params: AttentionParams, seed: u64) -> Self {
        Case {
            dtype,
            params,
            q_layout: Layout::Bshd,
            kv_layout: Layout::Bshd,
            v_layout: None,
            o_layout: None,
            inputs: Inputs::Normal { std: 1.0 },
            seed,
            with_lse: true,
            alibi: None,
            sinks: None,
            workspace: false,
        }
    }

    /// The layouts of Q, K, V and O.
    pub fn layouts(&self) -> [Layout; 4] {
        [
            self.q_layout,
            self.kv_layout,
            self.v_layout.unwrap_or(self.kv_layout),
            self.o_layout.unwrap_or(self.q_layout),
        ]
    }

    /// One line that rebuilds this case in Rust.
    pub fn reproducer(&self) -> String {
        let p = &self.params;
        format!(
            "dtype={} B={} Sq={} Sk={} Hq={} Hkv={} D={} causal={} window={:?} alignment={:?} softcap={:?} alibi={:?} sinks={:?} scale={:?} kernel={:?} q_layout={:?} kv_layout={:?} v_layout={:?} o_layout={:?} inputs={:?} seed={} lse={}{}",
            self.dtype,
            p.batch,
            p.seqlen_q,
            p.seqlen_k,
            p.heads_q,
            p.heads_kv,
            p.head_dim,
            p.causal,
            (p.window.left, p.window.right),
            p.alignment,
            p.softcap,
            self.alibi,
            self.sinks,
            p.softmax_scale,
            p.kernel,
            self.q_layout,
            self.kv_layout,
            self.v_layout,
            self.o_layout,
            self.inputs,
            self.seed,
            self.with_lse,
            if self.workspace {
                " workspace=true"
            } else {
                ""
            }
        )
    }
}

/// The result of one case.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The tolerance-rule verdict and its numbers.
    pub check: reference::Check,
    /// The kernel configuration that ran.
    pub config: &'static KernelConfig,
    /// How the launch dealt its tiles ([`flashattn::LaunchInfo::schedule`]).
    pub schedule: flashattn::Schedule,
    /// How Q, K and V reached shared memory ([`flashattn::LaunchInfo::feed`]).
    pub feed: flashattn::Feed,
    /// Wall time of the whole case (inputs, GPU, reference), seconds.
    pub seconds: f64,
    /// A hash of O's bits (FNV-1a): two runs of one case agree on it exactly when their outputs
    /// do.
    pub o_digest: u64,
}

impl Outcome {
    /// The line a test collects for a failed case (`reproducer [label]: the check's numbers`),
    /// or `None` when it passed.
    pub fn failure(&self, reproducer: &str, label: &str) -> Option<String> {
        (!self.check.pass).then(|| format!("{reproducer} [{label}]: {}", self.check.summary()))
    }
}

/// Bits that read as NaN in both f16 and bf16: poisons outputs before the launch.
pub(crate) const POISON_BITS: u16 = 0xFFFF;
/// A finite value in O's gaps (padding between heads and rows, and a tail after the last
/// element): the kernels must write exactly the addressed elements and nothing else.
pub(crate) const SENTINEL_BITS: u16 = 0x5A5A;
/// Sentinel elements after O's last addressed element (catches stores past the end).
pub(crate) const O_TAIL: usize = 64;

/// Run `case` on `stream` and check it. Errors are launch-layer errors (e.g. a refused
/// shape); a wrong answer is an `Ok` whose `check.pass` is false.
pub fn run_case(stream: &Arc<CudaStream>, case: &Case) -> Result<Outcome, flashattn::Error> {
    match case.dtype {
        DType::F16 => run_typed::<f16>(stream, case),
        DType::BF16 => run_typed::<bf16>(stream, case),
    }
}

/// Element types both the kernels and the reference understand.
pub trait TestElement:
    flashattn::Element + reference::Element + cudarc::driver::ValidAsZeroBits
{
    /// Reinterpret 16 bits.
    fn from_bits(bits: u16) -> Self;
    /// The 16 bits.
    fn bits(self) -> u16;
}
impl TestElement for f16 {
    fn from_bits(bits: u16) -> Self {
        f16::from_bits(bits)
    }
    fn bits(self) -> u16 {
        self.to_bits()
    }
}
impl TestElement for bf16 {
    fn from_bits(bits: u16) -> Self {
        bf16::from_bits(bits)
    }
    fn bits(self) -> u16 {
        self.to_bits()
    }
}

fn run_typed<T: TestElement>(
    stream: &Arc<CudaStream>,
    case: &Case,
) -> Result<Outcome, flashattn::Error> {
    let start = Instant::now();
    let p = &case.params;
    let d = p.head_dim;
    let [ql, kl, vl, ol] = case.layouts();
    let (qs, ks, vs, os) = (
        ql.strides(p.seqlen_q, p.heads_q, d),
        kl.strides(p.seqlen_k, p.heads_kv, d),
        vl.strides(p.seqlen_k, p.heads_kv, d),
        ol.strides(p.seqlen_q, p.heads_q, d),
    );
    let mut rng = StdRng::seed_from_u64(case.seed);
    let q = make_input::<T>(
        &mut rng,
        qs,
        [p.batch, p.seqlen_q, p.heads_q, d],
        case.inputs,
        Role::Query,
    );
    let k = make_input::<T>(
        &mut rng,
        ks,
        [p.batch, p.seqlen_k, p.heads_kv, d],
        case.inputs,
        Role::Key,
    );
    let v = make_input::<T>(
        &mut rng,
        vs,
        [p.batch, p.seqlen_k, p.heads_kv, d],
        case.inputs,
        Role::Value,
    );
    let o_dims = [p.batch, p.seqlen_q, p.heads_q, d];
    let addressed = addressed_elements(os, o_dims, len_of(os, o_dims) + O_TAIL);
    let o_init: Vec<T> = addressed
        .iter()
        .map(|&a| T::from_bits(if a { POISON_BITS } else { SENTINEL_BITS }))
        .collect();
    let lse_len = p.batch * p.heads_q * p.seqlen_q;

    let slopes = case.alibi.map(|a| a.values(p.heads_q));
    let sinks = case.sinks.map(|s| s.values(p.heads_q));
    let (o_host, lse_host, info, repeats) = launch_host(
        stream,
        p,
        [qs, ks, vs, os],
        [&q, &k, &v],
        &o_init,
        case.with_lse,
        [slopes.as_deref(), sinks.as_deref()],
        case.workspace,
    )?;
    let problem = reference_problem(p);
    let heads = reference::HeadParams {
        alibi_slopes: slopes.as_deref(),
        sinks: sinks.as_deref(),
    };
    let want = reference::reference_with(&problem, r(&q, qs), r(&k, ks), r(&v, vs), heads);
    let naive =
        reference::naive_same_precision_with(&problem, r(&q, qs), r(&k, ks), r(&v, vs), heads);
    let got = reference::gather_bshd(r(&o_host, os), p.batch, p.seqlen_q, p.heads_q, d);
    let lse = case.with_lse.then_some(&lse_host[..lse_len]);
    let mut check = reference::check(&problem, &got, lse, &want, &naive);
    fail_on_stray_writes(&mut check, &addressed, &o_host);
    fail_unless_repeated(&mut check, repeats);
    Ok(Outcome {
        check,
        config: info.config,
        schedule: info.schedule,
        feed: info.feed,
        seconds: start.elapsed().as_secs_f64(),
        o_digest: digest(&o_host),
    })
}

/// FNV-1a over the elements' bits.
pub(crate) fn digest<T: TestElement>(o: &[T]) -> u64 {
    o.iter().fold(0xcbf2_9ce4_8422_2325, |h, x| {
        (h ^ u64::from(x.bits())).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// One `forward_with` call on host data: Q, K, V, O's initial contents and the per-head ALiBi
/// slopes and sinks go to the device, O and LSE (NaN before the call; not asked for unless
/// `with_lse`) come back once the stream has finished. With `workspace`, the call is
/// `forward_with_workspace`'s with a zeroed one. The call is then made a second time, O and LSE
/// poisoned again (a workspace as the first call left it), and the last value says whether it
/// gave the first's O and LSE bit for bit: every forward call is deterministic (README,
/// "Determinism").
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn launch_host<T: TestElement>(
    stream: &Arc<CudaStream>,
    p: &AttentionParams,
    [qs, ks, vs, os]: [Strides; 4],
    [q, k, v]: [&[T]; 3],
    o_init: &[T],
    with_lse: bool,
    [slopes, sinks]: [Option<&[f32]>; 2],
    workspace: bool,
) -> Result<(Vec<T>, Vec<f32>, flashattn::LaunchInfo, bool), flashattn::Error> {
    let q_dev = stream.clone_htod(q)?;
    let k_dev = stream.clone_htod(k)?;
    let v_dev = stream.clone_htod(v)?;
    let mut o_dev = stream.clone_htod(o_init)?;
    let lse_len = p.batch * p.heads_q * p.seqlen_q;
    let lse_init = vec![f32::NAN; lse_len.max(1)];
    let mut lse_dev = stream.clone_htod(&lse_init)?;
    let slopes_dev = slopes.map(|s| stream.clone_htod(s)).transpose()?;
    let sinks_dev = sinks.map(|s| stream.clone_htod(s)).transpose()?;
    let mut workspace_dev = if workspace {
        let facts = flashattn::device_facts(stream.context())?;
        Some(flashattn::ForwardWorkspace::new(
            stream, &facts, p.head_dim,
        )?)
    } else {
        None
    };
    let mut call = |o_dev: &mut CudaSlice<T>, lse_dev: &mut CudaSlice<f32>| {
        let heads = flashattn::HeadVectors {
            alibi_slopes: slopes_dev.as_ref(),
            sinks: sinks_dev.as_ref(),
        };
        let (q_t, k_t, v_t) = (
            Tensor::new(&q_dev, qs),
            Tensor::new(&k_dev, ks),
            Tensor::new(&v_dev, vs),
        );
        let (o_t, lse_t) = (TensorMut::new(o_dev, os), with_lse.then_some(lse_dev));
        match workspace_dev.as_mut() {
            Some(w) => {
                flashattn::forward_with_workspace(stream, p, q_t, k_t, v_t, o_t, lse_t, heads, w)
            }
            None => flashattn::forward_with(stream, p, q_t, k_t, v_t, o_t, lse_t, heads),
        }
    };
    let info = call(&mut o_dev, &mut lse_dev)?;
    stream.synchronize()?;
    let (o_host, lse_host) = (stream.clone_dtoh(&o_dev)?, stream.clone_dtoh(&lse_dev)?);
    stream.memcpy_htod(o_init, &mut o_dev)?;
    stream.memcpy_htod(&lse_init, &mut lse_dev)?;
    call(&mut o_dev, &mut lse_dev)?;
    stream.synchronize()?;
    let repeats = holds_bits(stream, &o_dev, &lse_dev, &o_host, &lse_host)?;
    Ok((o_host, lse_host, info, repeats))
}

/// Whether O and LSE on the device hold `o` and `lse` bit for bit: a repeated call's outputs
/// against the first call's (README, "Determinism").
pub fn holds_bits<T: TestElement>(
    stream: &Arc<CudaStream>,
    o_dev: &CudaSlice<T>,
    lse_dev: &CudaSlice<f32>,
    o: &[T],
    lse: &[f32],
) -> Result<bool, cudarc::driver::DriverError> {
    let o_again = stream.clone_dtoh(o_dev)?;
    let lse_again = stream.clone_dtoh(lse_dev)?;
    Ok(o_again.len() == o.len()
        && lse_again.len() == lse.len()
        && o_again.iter().zip(o).all(|(x, y)| x.bits() == y.bits())
        && lse_again
            .iter()
            .zip(lse)
            .all(|(x, y)| x.to_bits() == y.to_bits()))
}

/// Fail `check` when a second call did not repeat the first's O and LSE ([`holds_bits`]).
pub(crate) fn fail_unless_repeated(check: &mut reference::Check, repeats: bool) {
    if !repeats {
        check.pass = false;
        check.ratio = f64::INFINITY;
        check.error = Some(
            "a second call (O and LSE poisoned again, a workspace if any as the first call left \
             it) did not repeat the first's O and LSE bit for bit"
                .into(),
        );
    }
}

/// Fail `check` when an element of O outside its shape (`addressed` false: padding or past the
/// end) no longer holds the sentinel.
pub(crate) fn fail_on_stray_writes<T: TestElement>(
    check: &mut reference::Check,
    addressed: &[bool],
    o_host: &[T],
) {
    let stray = addressed
        .iter()
        .zip(o_host)
        .enumerate()
        .filter(|(_, (a, x))| !**a && x.bits() != SENTINEL_BITS)
        .map(|(i, _)| i);
    let (stray_count, first_stray) =
        stray.fold((0usize, None), |(n, first), i| (n + 1, first.or(Some(i))));
    if let Some(first) = first_stray {
        check.pass = false;
        check.ratio = f64::INFINITY;
        check.error = Some(format!(
            "{stray_count} elements of O outside its shape (padding or past the end) were \
             overwritten, the first at element offset {first}"
        ));
    }
}

pub(crate) fn r<T>(data: &[T], s: Strides) -> reference::TensorRef<'_, T> {
    reference::TensorRef::new(
        data,
        reference::Strides {
            batch: s.batch,
            row: s.row,
            head: s.head,
        },
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Query,
    Key,
    Value,
}

/// Which of `len` elements a `[b, n, h, d]` tensor with strides `s` addresses.
pub(crate) fn addressed_elements(s: Strides, [b, n, h, d]: [usize; 4], len: usize) -> Vec<bool> {
    let mut addressed = vec![false; len];
    for bi in 0..b {
        for si in 0..n {
            for hi in 0..h {
                let base = (bi as i64 * s.batch + si as i64 * s.row + hi as i64 * s.head) as usize;
                addressed[base..base + d].fill(true);
            }
        }
    }
    addressed
}

pub(crate) fn len_of(s: Strides, [b, n, h, d]: [usize; 4]) -> usize {
    ((b - 1) as i64 * s.batch + (n - 1) as i64 * s.row + (h - 1) as i64 * s.head) as usize + d
}

/// A strided tensor whose addressed elements follow `inputs` and whose gaps hold NaN.
pub(crate) fn make_input<T: TestElement>(
    rng: &mut StdRng,
    s: Strides,
    dims: [usize; 4],
    inputs: Inputs,
    role: Role,
) -> Vec<T> {
    let [b, n, h, d] = dims;
    let mut buf = vec![T::from_f64(f64::NAN); len_of(s, dims)];
    for bi in 0..b {
        for si in 0..n {
            for hi in 0..h {
                let base = (bi as i64 * s.batch + si as i64 * s.row + hi as i64 * s.head) as usize;
                let row = &mut buf[base..base + d];
                fill_row(rng, row, inputs, role, si);
            }
        }
    }
    // Tied maxima: make each odd key (and its value) a copy of the even one before it.
    if let (Inputs::TiedMax { .. }, Role::Key | Role::Value) = (inputs, role) {
        for bi in 0..b {
            for si in (1..n).step_by(2) {
                for hi in 0..h {
                    let dst =
                        (bi as i64 * s.batch + si as i64 * s.row + hi as i64 * s.head) as usize;
                    let src = dst - s.row as usize;
                    for x in 0..d {
                        buf[dst + x] = buf[src + x];
                    }
                }
            }
        }
    }
    buf
}

fn fill_row<T: TestElement>(
    rng: &mut StdRng,
    row: &mut [T],
    inputs: Inputs,
    role: Role,
    index: usize,
) {
    let normal = |rng: &mut StdRng, std: f32| Normal::new(0.0f64, std as f64).unwrap().sample(rng);
    match inputs {
        Inputs::Normal { std } | Inputs::TiedMax { std } => row
            .iter_mut()
            .for_each(|x| *x = T::from_f64(normal(rng, std))),
        Inputs::LargeRows { std, factor } => {
            let f = if role == Role::Query && index % 7 == 3 {
                factor
            } else {
                1.0
            };
            row.iter_mut()
                .for_each(|x| *x = T::from_f64(normal(rng, std * f)));
        }
        Inputs::Drift { per_key } => {
            row.iter_mut()
                .for_each(|x| *x = T::from_f64(normal(rng, 1.0)));
            match role {
                Role::Query => row[0] = T::from_f64(1.0),
                Role::Key => row[0] = T::from_f64(per_key as f64 * index as f64),
                Role::Value => {}
            }
        }
        Inputs::ConstantRows => {
            let c = if role == Role::Query {
                rng.random_range(-2.0..2.0)
            } else {
                0.0
            };
            row.iter_mut().for_each(|x| {
                *x = T::from_f64(if role == Role::Query {
                    c
                } else {
                    normal(rng, 1.0)
                })
            });
        }
    }
}

/// The device to run on, or a clear reason why there is none.
pub fn gpu_stream() -> Result<Arc<CudaStream>, flashattn::Error> {
    let ctx = flashattn::open_device(0)?;
    Ok(ctx.default_stream())
}

/// The CPU reference's statement of a launch-layer problem: sizes, scale, mask and softcap.
pub fn reference_problem(p: &AttentionParams) -> reference::Problem {
    reference::Problem {
        softmax_scale: p.scale(),
        window_left: p.window.left,
        window_right: p.window.right,
        top_left: p.alignment == flashattn::MaskAlignment::TopLeft,
        softcap: p.softcap,
        ..reference::Problem::new(
            p.batch, p.seqlen_q, p.seqlen_k, p.heads_q, p.heads_kv, p.head_dim, p.causal,
        )
    }
}
