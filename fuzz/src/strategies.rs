//! Proptest strategies that draw random [`Case`]s for the fuzzer, weighted toward the shapes
//! and inputs where attention kernels go wrong, plus the two pieces of bookkeeping every
//! consumer of those cases needs: [`classify`] (which edges a case hits) and [`shrink`] (the
//! search for the smallest case that still fails).
//!
//! Every random choice is an independent, separately shrinkable value; the [`Case`] is a pure
//! function of them ([`CaseSpace::strategy`]). Constraints between fields (the head dim must be
//! compiled for the dtype, a named configuration must match both, the CPU reference's cost must
//! stay bounded) are enforced by that function rather than by dependent draws
//! (`prop_flat_map`), because dependent draws regenerate everything downstream whenever an
//! upstream value shrinks, which makes shrinking erratic. With independent values each one
//! shrinks on its own, which is what lets a failure shrink to an exact boundary such as
//! `seqlen_q = 37`.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use flashattn::{AttentionParams, DType, DeviceFacts, KernelChoice, KernelConfig};
use proptest::num::usize::BinarySearch;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::{NewTree, Union, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::harness::{Case, HeadVector, Inputs, Layout};

/// Tile sizes the kernels use or are likely to use; sequence lengths at these values +-1 are
/// where tail handling and masking bugs live. [`tile_sizes`] adds the compiled ones.
pub const BASE_TILES: [usize; 4] = [16, 32, 64, 128];

/// Powers of two at or above this are "long-sequence" edges; the smaller ones are tile sizes
/// or among the tiny lengths the strategy draws separately.
pub const POW2_EDGE_MIN: usize = 256;

/// Range the kernel selector is drawn from before it is reduced modulo the number of matching
/// configurations. It is divisible by every count from 1 to 16, so each configuration of a
/// (dtype, head dim) is equally likely.
const CONFIG_PICKS: usize = 720_720;

/// Which kernel configurations the fuzzer may run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ConfigFilter {
    /// [`KernelChoice::Auto`] and every compiled configuration of the drawn dtype and head dim.
    #[default]
    All,
    /// Only [`KernelChoice::Auto`] (the dispatcher's choice).
    Auto,
    /// [`KernelChoice::Auto`] and the warp-specialized configurations (the Hopper tiles that
    /// walk persistently and split their tails) of the drawn dtype and head dim.
    WarpSpecialized,
    /// Only these configurations, by name; dtype and head dim follow from them.
    Named(Vec<String>),
}

/// How often the masks and score modifiers (sliding windows, top-left alignment, softcap,
/// ALiBi, sinks) are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Features {
    /// Never: plain causal / non-causal attention only.
    Off,
    /// Each feature independently, in a minority of cases (the default).
    #[default]
    Mixed,
    /// Every case has at least one, and combinations are common (`flashattn-fuzz --features`).
    Always,
}

impl Features {
    /// Probabilities of (window, top-left, softcap, ALiBi, sinks).
    fn weights(self) -> [f64; 5] {
        match self {
            Features::Off => [0.0; 5],
            Features::Mixed => [0.25, 0.2, 0.15, 0.15, 0.2],
            Features::Always => [0.55, 0.35, 0.35, 0.35, 0.45],
        }
    }
}

/// `Some` of `inner` with probability `p`, including 0 (`Features::Off`), which
/// `proptest::option::weighted` refuses with a panic.
fn sometimes<S: Strategy + 'static>(p: f64, inner: S) -> BoxedStrategy<Option<S::Value>>
where
    S::Value: std::fmt::Debug + Clone,
{
    if p > 0.0 {
        proptest::option::weighted(p, inner).boxed()
    } else {
        Just(None).boxed()
    }
}

/// A (dtype, head dim) the strategy may draw, with the kernel choices allowed for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// Element type.
    pub dtype: DType,
    /// Head dim.
    pub head_dim: usize,
    /// Configurations drawn as [`KernelChoice::Id`]; empty means only `Auto`.
    pub configs: Vec<&'static KernelConfig>,
    /// Whether [`KernelChoice::Auto`] is drawn too.
    pub auto: bool,
}

/// Why a [`CaseSpace`] cannot produce any case (nothing compiled matches it, or a bound is 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceError(pub String);

impl fmt::Display for SpaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpaceError {}

/// The set of cases a strategy draws from.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseSpace {
    /// Largest `seqlen_q` and `seqlen_k`.
    pub max_seqlen: usize,
    /// Largest `batch * heads_q * seqlen_q * seqlen_k * head_dim` (the multiply-adds of one of
    /// the CPU reference's two matmuls). Batch, then heads, then the longer sequence are cut
    /// down to fit, so long sequences come with few heads instead of being rejected.
    pub max_work: u64,
    /// Largest batch.
    pub max_batch: usize,
    /// Largest `heads_kv`.
    pub max_heads_kv: usize,
    /// Largest GQA group (`heads_q / heads_kv`).
    pub max_group: usize,
    /// Largest `heads_q`; the group is cut down to respect it.
    pub max_heads_q: usize,
    /// Element types to draw (those without compiled kernels are skipped).
    pub dtypes: Vec<DType>,
    /// Head dims to draw; `None` means every compiled one.
    pub head_dims: Option<Vec<usize>>,
    /// Kernel configurations to draw.
    pub configs: ConfigFilter,
    /// Only configurations this device can run (built for its compute capability, within its
    /// shared memory after any `FLASHATTN_MAX_SMEM_PER_BLOCK` cap); `None`: every compiled one.
    pub device: Option<DeviceFacts>,
    /// How often masks and score modifiers are drawn.
    pub features: Features,
    /// Probability that a case is causal.
    pub causal: f64,
    /// Probability that a case passes a workspace ([`Case::workspace`]: a walk may then split
    /// its tail across the SMs, and the call must repeat itself bit for bit).
    pub workspace: f64,
    /// `seqlen_q` drawn from this inclusive range instead of up to `max_seqlen`.
    pub seqlen_q: Option<(usize, usize)>,
    /// `seqlen_k` likewise; with either range set, `seqlen_k` is never set equal to `seqlen_q`
    /// by construction (long key sequences over short query ones).
    pub seqlen_k: Option<(usize, usize)>,
}

impl Default for CaseSpace {
    /// The full space: sequences up to 4096, batch up to 4, up to 8 KV heads with groups up to
    /// 8, both dtypes, every compiled head dim and configuration, at most 2e9 multiply-adds.
    fn default() -> Self {
        CaseSpace {
            max_seqlen: 4096,
            max_work: 2_000_000_000,
            max_batch: 4,
            max_heads_kv: 8,
            max_group: 8,
            max_heads_q: 64,
            dtypes: vec![DType::F16, DType::BF16],
            head_dims: None,
            configs: ConfigFilter::All,
            device: None,
            features: Features::Mixed,
            causal: 0.5,
            workspace: 0.25,
            seqlen_q: None,
            seqlen_k: None,
        }
    }
}

impl CaseSpace {
    /// Small cases for runs under compute-sanitizer (100x slower kernels): sequences up to
    /// 300 (still several tiles and the 256 +-1 edge), batch up to 2, at most 8 query heads.
    pub fn small() -> Self {
        CaseSpace {
            max_seqlen: 300,
            max_work: 50_000_000,
            max_batch: 2,
            max_heads_q: 8,
            ..CaseSpace::default()
        }
    }

    /// [`CaseSpace::walks`] at [`CaseSpace::small`]'s sequence lengths (up to 300), for runs of
    /// the walks under compute-sanitizer, which the small space never reaches (its launches have
    /// at most 48 query tiles): up to 8 batches of up to 256 query heads, at most 1e9
    /// multiply-adds, so that a case has the tiles to walk on a 132-SM part.
    pub fn small_walks() -> Self {
        CaseSpace {
            max_seqlen: 300,
            max_work: 1_000_000_000,
            ..CaseSpace::walks()
        }
    }

    /// Launches of many query tiles, for the persistent warp-specialized walks (a CTA working
    /// through several tiles: the short-tile deals, the split of short tiles by keys, the causal
    /// fold, the K/V ring and O tile handed from tile to tile): up to 8 batches of up to 256
    /// query heads, sequences up to 1100, the default's 2e9 multiply-adds at most, at head dims
    /// 64, 96 and 128 (those with persistent kernels) on the warp-specialized configurations and
    /// Auto. About 60% of the non-causal cases launch more than twice as many 128-row tiles as a
    /// 132-SM part has SMs (the default space: about 15%), and over a quarter of the causal ones
    /// do with every row seeing a key, at about 1.6 times the default's mean cost a case. What
    /// ran on an H200 (the summary's schedules): 48% of the cases walked or folded, against 9%
    /// with every head dim and configuration drawn and 15% at every head dim on the
    /// warp-specialized configurations (docs/benchmarks/2026-11-29-h200-schedules.md).
    pub fn walks() -> Self {
        CaseSpace {
            head_dims: Some(vec![64, 96, 128]),
            configs: ConfigFilter::WarpSpecialized,
            max_seqlen: 1100,
            max_work: 2_000_000_000,
            max_batch: 8,
            max_heads_kv: 64,
            max_group: 8,
            max_heads_q: 256,
            ..CaseSpace::default()
        }
    }

    /// Launches whose head-dim-96 and -128 warp-specialized walks split their last tiles' keys
    /// across the SMs (`SplitTail`, common/tile_work.cuh: non-causal, unwindowed, given a
    /// workspace, more full query tiles than SMs, and enough keys for the host's model to expect
    /// a gain): head dims 96 and 128 on the warp-specialized configurations (and Auto) only,
    /// every case non-causal with a workspace, 2,048-5,120 keys over query sequences of 192-1,100
    /// rows (at least one full 192-row tile), up to 8 batches of up to 256 query heads, at most 2e10 multiply-adds
    /// (a few seconds of CPU reference a case; the budget leaves more full tiles than SMs up to
    /// about 5,000 keys). On an H200 about a quarter of its cases split (22 of 90 in calls IH and
    /// IJ, docs/benchmarks/2026-11-29-h200-schedules.md), most others walked whole tiles.
    pub fn splits() -> Self {
        CaseSpace {
            max_seqlen: 5120,
            seqlen_q: Some((192, 1100)),
            seqlen_k: Some((2048, 5120)),
            max_work: 20_000_000_000,
            max_batch: 8,
            max_heads_kv: 64,
            max_group: 8,
            max_heads_q: 256,
            head_dims: Some(vec![96, 128]),
            configs: ConfigFilter::WarpSpecialized,
            causal: 0.0,
            workspace: 1.0,
            ..CaseSpace::default()
        }
    }

    /// The (dtype, head dim) pairs this space draws, each with its allowed kernel choices.
    pub fn targets(&self) -> Result<Vec<Target>, SpaceError> {
        for (what, v) in [
            ("max_seqlen", self.max_seqlen),
            ("max_batch", self.max_batch),
            ("max_heads_kv", self.max_heads_kv),
            ("max_group", self.max_group),
            ("max_heads_q", self.max_heads_q),
        ] {
            if v == 0 {
                return Err(SpaceError(format!("{what} must be at least 1")));
            }
        }
        if self.max_seqlen > flashattn::MAX_SEQLEN {
            return Err(SpaceError(format!(
                "max_seqlen {} is above the kernels' limit {}",
                self.max_seqlen,
                flashattn::MAX_SEQLEN
            )));
        }
        for (what, range) in [("seqlen_q", self.seqlen_q), ("seqlen_k", self.seqlen_k)] {
            if let Some((lo, hi)) = range {
                if lo == 0 || lo > hi || hi > self.max_seqlen {
                    return Err(SpaceError(format!(
                        "{what} range {lo}..={hi} is not within 1..={} (max_seqlen)",
                        self.max_seqlen
                    )));
                }
            }
        }
        for (what, p) in [("causal", self.causal), ("workspace", self.workspace)] {
            if !(0.0..=1.0).contains(&p) {
                return Err(SpaceError(format!(
                    "{what} probability {p} is not in [0, 1]"
                )));
            }
        }
        let all = flashattn::kernel_configs();
        if let ConfigFilter::Named(names) = &self.configs {
            if let Some(missing) = names
                .iter()
                .find(|n| !all.iter().any(|c| c.name == n.as_str()))
            {
                let known: Vec<&str> = all.iter().map(|c| c.name).collect();
                return Err(SpaceError(format!(
                    "no compiled kernel configuration is named {missing}; compiled: {}",
                    known.join(", ")
                )));
            }
        }
        if let Some(dims) = &self.head_dims {
            for &d in dims {
                if !self
                    .dtypes
                    .iter()
                    .any(|&t| flashattn::compiled_head_dims(t).contains(&d))
                {
                    let compiled: Vec<String> = self
                        .dtypes
                        .iter()
                        .map(|&t| format!("{t}: {:?}", flashattn::compiled_head_dims(t)))
                        .collect();
                    return Err(SpaceError(format!(
                        "head dim {d} is not compiled for the selected dtypes ({})",
                        compiled.join("; ")
                    )));
                }
            }
        }
        let mut targets = Vec::new();
        for &dtype in &self.dtypes {
            for head_dim in flashattn::compiled_head_dims(dtype) {
                if self
                    .head_dims
                    .as_ref()
                    .is_some_and(|dims| !dims.contains(&head_dim))
                {
                    continue;
                }
                let matching = all.iter().filter(|c| {
                    c.dtype == dtype
                        && c.head_dim == head_dim
                        && self.device.as_ref().is_none_or(|d| d.can_run(c))
                });
                let (configs, auto): (Vec<&'static KernelConfig>, bool) = match &self.configs {
                    ConfigFilter::All => (matching.collect(), true),
                    ConfigFilter::Auto => (Vec::new(), true),
                    ConfigFilter::WarpSpecialized => {
                        (matching.filter(|c| c.warp_specialized()).collect(), true)
                    }
                    ConfigFilter::Named(names) => (
                        matching
                            .filter(|c| names.iter().any(|n| n == c.name))
                            .collect(),
                        false,
                    ),
                };
                if auto || !configs.is_empty() {
                    targets.push(Target {
                        dtype,
                        head_dim,
                        configs,
                        auto,
                    });
                }
            }
        }
        if targets.is_empty() {
            return Err(SpaceError(format!(
                "nothing compiled matches dtypes {:?}, head dims {:?}, configs {:?}",
                self.dtypes, self.head_dims, self.configs
            )));
        }
        Ok(targets)
    }

    /// The strategy that draws cases from this space.
    pub fn strategy(&self) -> Result<BoxedStrategy<Case>, SpaceError> {
        let targets = Arc::new(self.targets()?);
        let seqlen = || seqlen_strategy(self.max_seqlen);
        let seqlen_in = |range: Option<(usize, usize)>| match range {
            Some((lo, hi)) => seqlen_range_strategy(lo, hi),
            None => seqlen().boxed(),
        };
        let any_square = self.seqlen_q.is_none() && self.seqlen_k.is_none();
        // Tuples shrink left to right, one element at a time: sizes first (they dominate the
        // cost of every shrinking step and the readability of the result), then the mask,
        // data and layout, then the kernel. The seed never shrinks: a different seed is not a
        // simpler case, only a different one.
        let shape = (
            1..=self.max_batch,
            1..=self.max_heads_kv,
            1..=self.max_group,
            seqlen_in(self.seqlen_q),
            seqlen_in(self.seqlen_k),
            // Sq = Sk (self-attention, the causal diagonal on the tile grid's diagonal) is the
            // most used shape and independent draws almost never produce it. Drawn as a flag
            // rather than derived, so that it shrinks away (to `false`) when it does not matter.
            proptest::bool::weighted(0.15),
        );
        let mask = (
            proptest::bool::weighted(self.causal),
            scale_strategy(),
            proptest::bool::weighted(0.9),
            proptest::bool::weighted(self.workspace),
        );
        let data = (
            layout_strategy(),
            input_layout_strategy(),
            inputs_strategy(),
            // V and O in a layout of their own a quarter of the time each.
            proptest::option::weighted(0.25, input_layout_strategy()),
            proptest::option::weighted(0.25, layout_strategy()),
        );
        let kernel = (0..targets.len(), kernel_selector(&self.configs));
        let bounds = Bounds {
            max_work: self.max_work,
            max_heads_q: self.max_heads_q,
        };
        let [w_window, w_top_left, w_softcap, w_alibi, w_sinks] = self.features.weights();
        let features = (
            sometimes(
                w_window,
                (window_side(self.max_seqlen), window_side(self.max_seqlen)),
            ),
            proptest::bool::weighted(w_top_left),
            sometimes(w_softcap, softcap_strategy()),
            sometimes(w_alibi, alibi_strategy()),
            sometimes(w_sinks, sinks_strategy()),
        );
        let always = self.features == Features::Always;
        Ok((
            shape,
            mask,
            data,
            kernel,
            features,
            any::<u64>().no_shrink(),
        )
            .prop_map(move |(shape, mask, data, kernel, features, seed)| {
                let (batch, heads_kv, group, seqlen_q, seqlen_k, square) = shape;
                let seqlen_k = if square && any_square {
                    seqlen_q
                } else {
                    seqlen_k
                };
                let (causal, softmax_scale, with_lse, workspace) = mask;
                let (q_layout, kv_layout, inputs, v_layout, o_layout) = data;
                let (target_ix, selector) = kernel;
                let t = &targets[target_ix];
                let (window, top_left, mut softcap, mut alibi, mut sinks) = features;
                if always
                    && window.is_none()
                    && !top_left
                    && softcap.is_none()
                    && alibi.is_none()
                    && sinks.is_none()
                {
                    sinks = Some(HeadVector::Constant(0.0));
                }
                // softcap and ALiBi run on the configurations compiled with score modifiers:
                // such a case draws among those; where none is allowed it keeps its masks only.
                let with_mods: Vec<&KernelConfig> =
                    t.configs.iter().copied().filter(|c| c.score_mods).collect();
                let mods = softcap.is_some() || alibi.is_some();
                let pool: &[&KernelConfig] = if mods { &with_mods } else { &t.configs };
                if mods && pool.is_empty() && !t.auto {
                    softcap = None;
                    alibi = None;
                }
                let pool: &[&KernelConfig] = if softcap.is_some() || alibi.is_some() {
                    pool
                } else {
                    &t.configs
                };
                let kernel = match (selector, pool.is_empty()) {
                    (_, true) => KernelChoice::Auto,
                    (None, false) if t.auto => KernelChoice::Auto,
                    (None, false) => KernelChoice::Id(pool[0].id),
                    (Some(r), false) => KernelChoice::Id(pool[r % pool.len()].id),
                };
                let (batch, heads_kv, group, seqlen_q, seqlen_k) = bounds.fit(
                    Sizes {
                        batch,
                        heads_kv,
                        group,
                        seqlen_q,
                        seqlen_k,
                    },
                    t.head_dim,
                );
                let params = AttentionParams {
                    batch,
                    seqlen_q,
                    seqlen_k,
                    heads_q: heads_kv * group,
                    heads_kv,
                    head_dim: t.head_dim,
                    causal,
                    window: window.map_or(flashattn::Window::UNBOUNDED, |(left, right)| {
                        flashattn::Window::new(left, right)
                    }),
                    alignment: if top_left {
                        flashattn::MaskAlignment::TopLeft
                    } else {
                        flashattn::MaskAlignment::BottomRight
                    },
                    softcap,
                    softmax_scale,
                    kernel,
                };
                Case {
                    dtype: t.dtype,
                    params,
                    q_layout,
                    kv_layout,
                    v_layout,
                    o_layout,
                    inputs,
                    seed,
                    with_lse,
                    alibi,
                    sinks,
                    workspace,
                }
            })
            .boxed())
    }
}

/// One side of a sliding window: unbounded, 0 (the diagonal alone), tiny, near a tile size, or
/// anywhere up to `max` (a window as long as the sequence is the unbounded one).
fn window_side(max: usize) -> BoxedStrategy<Option<usize>> {
    const EDGES: &[usize] = &[
        0, 1, 2, 7, 15, 16, 17, 31, 63, 64, 65, 127, 128, 129, 255, 256, 1023,
    ];
    let edges: Vec<usize> = EDGES.iter().copied().filter(|&w| w <= max).collect();
    prop_oneof![
        2 => Just(None),
        3 => select(edges).prop_map(Some),
        2 => (0..=max).prop_map(Some),
    ]
    .boxed()
}

/// Softcaps from tiny (every logit saturated at +-cap) through Gemma-2's 30 and 50 to huge
/// (no effect), and uniform in between.
fn softcap_strategy() -> BoxedStrategy<f32> {
    const CAPS: &[f32] = &[30.0, 50.0, 1e-3, 0.05, 1.0, 5.0, 1e3, 1e6];
    prop_oneof![3 => select(CAPS), 1 => 0.01f32..=100.0].boxed()
}

/// ALiBi slopes: the models' geometric ones, zero, varied, steep, and negative (rewarding
/// distance).
fn alibi_strategy() -> BoxedStrategy<HeadVector> {
    prop_oneof![
        3 => select(&[0.5f32, 0.25, 0.0625, 0.00390625][..])
            .prop_map(|r| HeadVector::Geometric { first: r, ratio: r }),
        1 => Just(HeadVector::Constant(0.0)),
        2 => Just(HeadVector::Spread { lo: 0.0, hi: 1.0 }),
        1 => Just(HeadVector::Spread { lo: 0.5, hi: 8.0 }),
        1 => Just(HeadVector::Spread { lo: -0.05, hi: 0.05 }),
    ]
    .boxed()
}

/// Sinks of both signs: around the scores' scale, dominating them, negligible, and -inf (no
/// sink at all).
fn sinks_strategy() -> BoxedStrategy<HeadVector> {
    prop_oneof![
        3 => Just(HeadVector::Spread { lo: -4.0, hi: 4.0 }),
        1 => Just(HeadVector::Constant(0.0)),
        1 => Just(HeadVector::Constant(25.0)),
        1 => Just(HeadVector::Constant(-25.0)),
        1 => Just(HeadVector::Spread { lo: -60.0, hi: 60.0 }),
        1 => Just(HeadVector::Constant(f32::NEG_INFINITY)),
    ]
    .boxed()
}

/// `batch * heads_q * seqlen_q * seqlen_k * head_dim` of a case: the multiply-adds of one of
/// the CPU reference's two matmuls (the quantity [`CaseSpace::max_work`] bounds).
pub fn work(case: &Case) -> u64 {
    let p = &case.params;
    [p.batch, p.heads_q, p.seqlen_q, p.seqlen_k, p.head_dim]
        .iter()
        .map(|&x| x as u64)
        .product()
}

struct Sizes {
    batch: usize,
    heads_kv: usize,
    group: usize,
    seqlen_q: usize,
    seqlen_k: usize,
}

#[derive(Clone, Copy)]
struct Bounds {
    max_work: u64,
    max_heads_q: usize,
}

impl Bounds {
    /// Cut the drawn sizes down to the head and work limits. Every cut is monotone in the
    /// drawn value (a smaller draw never gives a larger size), so shrinking a drawn value
    /// shrinks the case.
    fn fit(self, s: Sizes, head_dim: usize) -> (usize, usize, usize, usize, usize) {
        let Sizes {
            mut batch,
            mut heads_kv,
            mut group,
            mut seqlen_q,
            mut seqlen_k,
        } = s;
        heads_kv = heads_kv.min(self.max_heads_q);
        group = group.min((self.max_heads_q / heads_kv).max(1));
        let d = head_dim as u64;
        let cap = |limit: u64, rest: u64| (limit / rest.max(1)).max(1) as usize;
        // Batch goes first, then KV heads, then the group: GQA/MQA structure is worth more
        // coverage than a second batch entry.
        let per_batch = (heads_kv * group) as u64 * seqlen_q as u64 * seqlen_k as u64 * d;
        batch = batch.min(cap(self.max_work, per_batch));
        heads_kv = heads_kv.min(cap(
            self.max_work,
            batch as u64 * group as u64 * seqlen_q as u64 * seqlen_k as u64 * d,
        ));
        group = group.min(cap(
            self.max_work,
            (batch * heads_kv) as u64 * seqlen_q as u64 * seqlen_k as u64 * d,
        ));
        // One (batch, head) can still be over budget (4096 x 4096 at d256): shorten the longer
        // sequence, keeping the other (often an edge value) intact.
        let heads = (batch * heads_kv * group) as u64 * d;
        if seqlen_q >= seqlen_k {
            seqlen_q = seqlen_q.min(cap(self.max_work, heads * seqlen_k as u64));
            seqlen_k = seqlen_k.min(cap(self.max_work, heads * seqlen_q as u64));
        } else {
            seqlen_k = seqlen_k.min(cap(self.max_work, heads * seqlen_q as u64));
            seqlen_q = seqlen_q.min(cap(self.max_work, heads * seqlen_k as u64));
        }
        (batch, heads_kv, group, seqlen_q, seqlen_k)
    }
}

/// Tile sizes worth probing: [`BASE_TILES`] plus every compiled `block_m` and `block_n`.
pub fn tile_sizes() -> Vec<usize> {
    let mut tiles: Vec<usize> = BASE_TILES.to_vec();
    for c in flashattn::kernel_configs() {
        tiles.extend([c.block_m, c.block_n]);
    }
    tiles.sort_unstable();
    tiles.dedup();
    tiles
}

/// Sequence lengths within `1..=max` next to tile boundaries: `k*t - 1, k*t, k*t + 1` for
/// every tile size `t` and `k` in 1..=3 (one tile, and the second and third tile's tails).
pub fn tile_edges(max: usize) -> Vec<usize> {
    let mut v: Vec<usize> = tile_sizes()
        .into_iter()
        .flat_map(|t| (1..=3).flat_map(move |k| [k * t - 1, k * t, k * t + 1]))
        .collect();
    v.retain(|&x| (1..=max).contains(&x));
    v.sort_unstable();
    v.dedup();
    v
}

/// Sequence lengths within `1..=max` next to powers of two from [`POW2_EDGE_MIN`] up.
pub fn pow2_edges(max: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (POW2_EDGE_MIN.trailing_zeros()..usize::BITS - 1)
        .map(|k| 1usize << k)
        .take_while(|&p| p <= max + 1)
        .flat_map(|p| [p - 1, p, p + 1])
        .collect();
    v.retain(|&x| (1..=max).contains(&x));
    v.dedup();
    v
}

/// Draws a value from `inner` and then shrinks it by binary search toward `lo`, whatever
/// `inner` is. Edge-weighted draws come from a union of lists, and a list only shrinks to its
/// own earlier entries; this wrapper lets the value shrink through every integer instead, so a
/// failure that starts at 63 can shrink to 37.
#[derive(Clone, Debug)]
pub(crate) struct ShrinkToward<S> {
    inner: S,
    lo: usize,
}

impl<S: Strategy<Value = usize>> Strategy for ShrinkToward<S> {
    type Tree = BinarySearch;
    type Value = usize;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let v = self.inner.new_tree(runner)?.current();
        Ok(BinarySearch::new_above(self.lo, v.max(self.lo)))
    }
}

/// A sequence length in `1..=max`: 1, tiny lengths, tile edges, power-of-two edges, short
/// uniform, uniform.
pub(crate) fn seqlen_strategy(max: usize) -> ShrinkToward<Union<BoxedStrategy<usize>>> {
    const TINY: &[usize] = &[2, 3, 4, 5, 7, 8, 9];
    let mut arms: Vec<(u32, BoxedStrategy<usize>)> = vec![(10, Just(1usize).boxed())];
    // Below the smallest tile: single-fragment tails and the small powers of two.
    let tiny: Vec<usize> = TINY.iter().copied().filter(|&x| x <= max).collect();
    if !tiny.is_empty() {
        arms.push((5, select(tiny).boxed()));
    }
    let tiles = tile_edges(max);
    if !tiles.is_empty() {
        arms.push((30, select(tiles).boxed()));
    }
    let pow2 = pow2_edges(max);
    if !pow2.is_empty() {
        arms.push((20, select(pow2).boxed()));
    }
    // Short uniform lengths are cheap and cover odd tails inside the first tiles.
    arms.push((10, (1..=max.min(200)).boxed()));
    arms.push((25, (1..=max).boxed()));
    ShrinkToward {
        inner: Union::new_weighted(arms),
        lo: 1,
    }
}

/// Lengths in `lo..=hi`: the tile and power-of-two edges among them a third of the time,
/// uniform otherwise, shrinking toward `lo`.
fn seqlen_range_strategy(lo: usize, hi: usize) -> BoxedStrategy<usize> {
    let edges: Vec<usize> = tile_edges(hi)
        .into_iter()
        .chain(pow2_edges(hi))
        .filter(|&x| x >= lo)
        .collect();
    if edges.is_empty() {
        (lo..=hi).boxed()
    } else {
        prop_oneof![1 => select(edges), 2 => lo..=hi].boxed()
    }
}

/// `None` (the `1/sqrt(d)` default) three times in four, else a scale in [0.01, 2].
fn scale_strategy() -> BoxedStrategy<Option<f32>> {
    prop_oneof![3 => Just(None), 1 => (0.01f32..=2.0).prop_map(Some)].boxed()
}

/// An input's layout: those of [`layout_strategy`], or one K/V shared by the whole batch
/// (batch stride 0) one time in eight.
fn input_layout_strategy() -> BoxedStrategy<Layout> {
    prop_oneof![7 => layout_strategy(), 1 => Just(Layout::BatchBroadcast)].boxed()
}

/// BSHD, BHSD or padded, each a third of the time.
fn layout_strategy() -> BoxedStrategy<Layout> {
    const GAPS: &[usize] = &[8, 16, 24];
    let gap = || select(GAPS);
    prop_oneof![
        Just(Layout::Bshd),
        Just(Layout::Bhsd),
        (gap(), gap()).prop_map(|(head_gap, row_gap)| Layout::Padded { head_gap, row_gap }),
    ]
    .boxed()
}

/// Normal inputs at five scales (listed so that shrinking reaches std 1 first), and the three
/// hostile kinds.
fn inputs_strategy() -> BoxedStrategy<Inputs> {
    const NORMAL_STDS: &[f32] = &[1.0, 0.1, 4.0, 0.01, 30.0];
    const LARGE_ROW_STDS: &[f32] = &[1.0, 0.5];
    const TIED_STDS: &[f32] = &[1.0, 0.1, 4.0];
    prop_oneof![
        4 => select(NORMAL_STDS).prop_map(|std| Inputs::Normal { std }),
        1 => (select(LARGE_ROW_STDS), 30.0f32..=1000.0).prop_map(|(std, factor)| Inputs::LargeRows { std, factor }),
        1 => Just(Inputs::ConstantRows),
        1 => select(TIED_STDS).prop_map(|std| Inputs::TiedMax { std }),
    ]
    .boxed()
}

/// `None` means `Auto` (where allowed); `Some(r)` picks configuration `r mod count`.
fn kernel_selector(filter: &ConfigFilter) -> BoxedStrategy<Option<usize>> {
    let pick = || (0..CONFIG_PICKS).prop_map(Some);
    match filter {
        ConfigFilter::All | ConfigFilter::WarpSpecialized => {
            prop_oneof![1 => Just(None), 3 => pick()].boxed()
        }
        ConfigFilter::Auto => Just(None).boxed(),
        ConfigFilter::Named(_) => pick().boxed(),
    }
}

/// A [`TestRunner`] whose draws depend on `seed` alone, so `flashattn-fuzz --seed S` replays.
pub fn seeded_runner(seed: u64) -> TestRunner {
    // ChaCha wants 32 bytes; splitmix64 spreads the 8 we have so that nearby seeds give
    // unrelated streams.
    let mut x = seed;
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_mut(8) {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

/// Every label [`classify`] can produce, in display order.
pub fn all_labels() -> Vec<&'static str> {
    edges(&Case::new(
        DType::F16,
        AttentionParams::new(1, 1, 1, 1, 1),
        0,
    ))
    .iter()
    .map(|&(label, _)| label)
    .collect()
}

/// The edges `case` hits, as short labels (see [`all_labels`]), for coverage counters.
pub fn classify(case: &Case) -> Vec<&'static str> {
    edges(case)
        .into_iter()
        .filter(|&(_, hit)| hit)
        .map(|(label, _)| label)
        .collect()
}

/// The one list of labels and their conditions, so that [`all_labels`] and [`classify`]
/// cannot disagree.
fn edges(case: &Case) -> Vec<(&'static str, bool)> {
    let p = &case.params;
    let tiles = tile_sizes();
    let near = |x: usize, t: usize| x + 1 >= t && x <= t + 1;
    let near_tile = |x: usize| tiles.iter().any(|&t| near(x, t));
    // Query tiles of 128 rows in the launch (the warp-specialized tiles' CTAs).
    let tiles_128 = p.seqlen_q.div_ceil(128) * p.batch * p.heads_q;
    // x >= 255 keeps the power itself >= 256: below that, powers of two are tiles.
    let near_pow2 =
        |x: usize| x + 1 >= POW2_EDGE_MIN && [x - 1, x, x + 1].iter().any(|y| y.is_power_of_two());
    let group = p.heads_q / p.heads_kv.max(1);
    let layout = |l: Layout| match l {
        Layout::Bshd => 0,
        Layout::Bhsd => 1,
        Layout::Padded { .. } => 2,
        Layout::BatchBroadcast => 3,
    };
    let [q_l, k_l, v_l, o_l] = case.layouts();
    let (ql, kvl) = (layout(q_l), layout(k_l));
    vec![
        ("sq=1", p.seqlen_q == 1),
        ("sk=1", p.seqlen_k == 1),
        ("sq=tile+-1", near_tile(p.seqlen_q)),
        ("sk=tile+-1", near_tile(p.seqlen_k)),
        ("sq=pow2+-1", near_pow2(p.seqlen_q)),
        ("sk=pow2+-1", near_pow2(p.seqlen_k)),
        ("sq>=1024", p.seqlen_q >= 1024),
        ("sk>=1024", p.seqlen_k >= 1024),
        ("sq=sk", p.seqlen_q == p.seqlen_k),
        ("causal", p.causal),
        (
            "sq=sk causal (diagonal)",
            p.causal && p.seqlen_q == p.seqlen_k,
        ),
        (
            "sq>sk causal (fully masked rows)",
            p.causal && p.seqlen_q > p.seqlen_k,
        ),
        (
            "sq<sk causal (shifted diagonal)",
            p.causal && p.seqlen_q < p.seqlen_k,
        ),
        ("batch>1", p.batch > 1),
        // More 128-row query tiles than two per SM of a 132-SM H100/H200: a non-causal launch of
        // the warp-specialized tiles then runs persistent, several tiles per CTA.
        (
            "non-causal, > 264 tiles of 128 rows (persistent ws)",
            !p.causal && tiles_128 > 264,
        ),
        // The same at head dims 96 and 128 with at most 4096 keys: the persistent walk with O
        // stored from registers (WsTraits::kWalkMaxKeys).
        (
            "non-causal d96/d128, > 132 tiles, <= 4096 keys (persistent ws walk)",
            !p.causal && matches!(p.head_dim, 96 | 128) && p.seqlen_k <= 4096 && tiles_128 > 132,
        ),
        // A causal launch without a window in which every row sees a key, with more 128-row
        // query tiles than two per SM: the warp-specialized tiles walk it in folds where the
        // launcher's cost model expects that to pay (common/tile_work.cuh, causal_fold_deal).
        (
            "causal, every row sees a key, > 264 tiles of 128 rows (persistent causal walk)",
            p.causal
                && p.window.is_unbounded()
                && (p.alignment == flashattn::MaskAlignment::TopLeft || p.seqlen_q <= p.seqlen_k)
                && tiles_128 > 264,
        ),
        ("mha", group == 1 && p.heads_q > 1),
        ("gqa", group > 1 && p.heads_kv > 1),
        ("mqa", p.heads_kv == 1 && p.heads_q > 1),
        ("q:bshd", ql == 0),
        ("q:bhsd", ql == 1),
        ("q:padded", ql == 2),
        ("kv:bshd", kvl == 0),
        ("kv:bhsd", kvl == 1),
        ("kv:padded", kvl == 2),
        ("kv:batch-broadcast", kvl == 3 && p.batch > 1),
        ("v layout != k layout", v_l != k_l),
        ("o layout != q layout", o_l != q_l),
        ("o:padded (sentinel gaps)", layout(o_l) == 2),
        ("normal", matches!(case.inputs, Inputs::Normal { .. })),
        (
            "normal std<=0.01",
            matches!(case.inputs, Inputs::Normal { std } if std <= 0.01),
        ),
        (
            "normal std>=30",
            matches!(case.inputs, Inputs::Normal { std } if std >= 30.0),
        ),
        (
            "large_rows",
            matches!(case.inputs, Inputs::LargeRows { .. }),
        ),
        ("constant_rows", matches!(case.inputs, Inputs::ConstantRows)),
        ("tied_max", matches!(case.inputs, Inputs::TiedMax { .. })),
        ("custom_scale", p.softmax_scale.is_some()),
        ("window", !p.window.is_unbounded()),
        ("window left", p.window.left.is_some()),
        ("window right", p.window.right.is_some()),
        ("window + causal", !p.window.is_unbounded() && p.causal),
        (
            "rows seeing no key",
            (0..p.seqlen_q).any(|i| p.visible_keys(i).is_empty()),
        ),
        ("top-left", p.alignment == flashattn::MaskAlignment::TopLeft),
        ("softcap", p.softcap.is_some()),
        ("softcap <= 0.05", p.softcap.is_some_and(|c| c <= 0.05)),
        ("softcap >= 1e3", p.softcap.is_some_and(|c| c >= 1e3)),
        ("alibi", case.alibi.is_some()),
        ("sinks", case.sinks.is_some()),
        (
            "sinks >= 20 or <= -20",
            case.sinks
                .is_some_and(|s| s.values(p.heads_q.max(1)).iter().any(|v| v.abs() >= 20.0)),
        ),
        (
            "softcap or alibi + sinks + window",
            (p.softcap.is_some() || case.alibi.is_some())
                && case.sinks.is_some()
                && !p.window.is_unbounded(),
        ),
        ("auto_config", p.kernel == KernelChoice::Auto),
        ("named_config", p.kernel != KernelChoice::Auto),
        ("no_lse", !case.with_lse),
    ]
}

/// What [`shrink`] found.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The simplest case seen to fail (the starting case when nothing simpler failed).
    pub case: Case,
    /// Distinct cases the predicate was run on.
    pub steps: usize,
    /// How many of those failed.
    pub failing_steps: usize,
    /// True when the step budget ran out before the search was done.
    pub out_of_steps: bool,
}

/// Search for the simplest failing case below `tree.current()`, which must fail.
///
/// `fails` runs one case (on the GPU, for the fuzzer) and says whether it fails. The search is
/// proptest's: simplify after a failure, complicate (undo part of the last simplification)
/// after a pass, until neither is possible or `max_steps` distinct cases have been run.
/// Results are remembered by [`Case::reproducer`], because the search revisits cases and each
/// visit would otherwise cost a GPU run.
pub fn shrink<T>(tree: &mut T, max_steps: usize, mut fails: impl FnMut(&Case) -> bool) -> Shrunk
where
    T: ValueTree<Value = Case> + ?Sized,
{
    let mut best = tree.current();
    let mut seen: HashMap<String, bool> = HashMap::from([(best.reproducer(), true)]);
    let (mut steps, mut failing_steps) = (0, 0);
    let mut out_of_steps = false;
    // Memo hits cost no run but still move the search; this cap only guards against a tree
    // that cycles through remembered cases forever.
    let max_moves = max_steps.saturating_mul(16).max(64);
    let mut moves = 0usize;
    if tree.simplify() {
        loop {
            moves += 1;
            let case = tree.current();
            let key = case.reproducer();
            let failed = match seen.get(&key) {
                Some(&f) if moves <= max_moves => f,
                Some(_) => {
                    out_of_steps = true;
                    break;
                }
                None if steps >= max_steps => {
                    out_of_steps = true;
                    break;
                }
                None => {
                    steps += 1;
                    let f = fails(&case);
                    failing_steps += usize::from(f);
                    seen.insert(key, f);
                    f
                }
            };
            if failed {
                best = case;
                if !tree.simplify() {
                    break;
                }
            } else if !tree.complicate() {
                break;
            }
        }
    }
    Shrunk {
        case: best,
        steps,
        failing_steps,
        out_of_steps,
    }
}
