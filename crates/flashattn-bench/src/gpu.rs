//! Timing our kernels on the GPU with the same protocol as `python/sdpa_baseline.py`:
//! events around back-to-back calls (hot L2), the same with inputs rotated over more than twice
//! the L2 (cold), and per-call time inside a replayed CUDA graph of `graph_calls` calls.

use std::sync::Arc;

use cudarc::driver::sys::{
    CUdevice_attribute, CUevent_flags, CUgraphInstantiate_flags, CUstreamCaptureMode,
};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use flashattn::{
    AttentionParams, DType, DecodeParams, HeadVectors, KernelChoice, KernelConfig, PagedKv,
    Strides, Tensor, TensorMut, Varlen, Window,
};
use flashattn_fuzz::harness::TestElement;
use half::{bf16, f16};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::report::{BenchResult, Device, MODE_COLD, MODE_EVENTS, MODE_GRAPH, ScoreMods, Shape};

/// Input buffers up to this many elements are drawn value by value on the host (every forward
/// and varlen suite's, the largest 79M, so their inputs are what they were before); larger ones
/// (the decode suite's caches of 268M elements and more) repeat a random block of
/// [`TILED_FILL_BLOCK`] elements.
const TILED_FILL_ABOVE: usize = 1 << 27;
const TILED_FILL_BLOCK: usize = 1 << 24;

/// How to time.
#[derive(Clone, Debug)]
pub struct Protocol {
    /// Timed samples per (shape, mode).
    pub iters: usize,
    /// Untimed calls first.
    pub warmup: usize,
    /// Calls captured per graph in graph mode.
    pub graph_calls: usize,
    /// Before the samples, keep calling for at least this long (0: only `warmup` calls). An
    /// H100 at its power cap (700 W) settles its clock about a second into a sustained load; a
    /// few dozen samples taken before that time the climb, so two implementations timed one
    /// after the other can each catch a different part of it.
    pub warm_ms: f64,
    /// Modes to run: [`MODE_EVENTS`], [`MODE_COLD`], [`MODE_GRAPH`].
    pub modes: Vec<String>,
    /// Decode shapes: this many key-range parts instead of [`flashattn::decode_splits`]'s.
    pub decode_splits: Option<usize>,
    /// Our calls store O only, not LSE (what SDPA's inference calls return).
    pub no_lse: bool,
    /// Our forward calls get no workspace, so no launch splits its last tiles
    /// ([`flashattn::forward_with_workspace`]).
    pub no_workspace: bool,
}

impl Default for Protocol {
    fn default() -> Self {
        Protocol {
            iters: 100,
            warmup: 10,
            graph_calls: 20,
            warm_ms: 0.0,
            modes: vec![MODE_EVENTS.into(), MODE_GRAPH.into()],
            decode_splits: None,
            no_lse: false,
            no_workspace: false,
        }
    }
}

/// A GPU opened for benchmarking: its own non-default stream (graph capture needs one).
pub struct Gpu {
    /// The context.
    pub ctx: Arc<CudaContext>,
    /// The stream all launches go to.
    pub stream: Arc<CudaStream>,
    /// L2 size in bytes.
    pub l2_bytes: usize,
    /// Multiprocessors.
    pub sm_count: usize,
}

impl Gpu {
    /// Open device `ordinal`.
    pub fn open(ordinal: usize) -> Result<Gpu, flashattn::Error> {
        let ctx = flashattn::open_device(ordinal)?;
        // Per-buffer event tracking would add event records and waits to every launch (and
        // cross-capture waits break graph capture); the benchmark orders its work itself.
        // SAFETY: only this module uses buffers of this context, all on one stream.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let l2_bytes =
            ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize;
        let sm_count =
            ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as usize;
        Ok(Gpu {
            ctx,
            stream,
            l2_bytes,
            sm_count,
        })
    }

    /// What the launch layer knows of this device: the configurations it can run are those
    /// built for its compute capability that fit its shared memory (after any
    /// `FLASHATTN_MAX_SMEM_PER_BLOCK` cap).
    pub fn facts(&self) -> Result<std::sync::Arc<flashattn::DeviceFacts>, flashattn::Error> {
        flashattn::device_facts(&self.ctx)
    }

    /// The device description for a report.
    pub fn device(&self) -> Device {
        let cc = self.ctx.compute_capability().ok();
        Device {
            name: self.ctx.name().unwrap_or_default(),
            compute_capability: cc.map(|(a, b)| format!("{a}.{b}")),
            sm_count: Some(self.sm_count as u32),
            ..Device::default()
        }
    }

    /// Time our kernel on `shape` with `choice`, one [`BenchResult`] per mode. A launch-layer
    /// refusal becomes a failed result, not an error.
    pub fn bench(
        &self,
        suite: &str,
        shape: &Shape,
        choice: &KernelChoice,
        label: &str,
        proto: &Protocol,
    ) -> Vec<BenchResult> {
        let run = || -> Result<Vec<BenchResult>, flashattn::Error> {
            let cold = proto.modes.iter().any(|m| m == MODE_COLD);
            let mut w = self.workload_split(shape, choice.clone(), cold, proto.decode_splits)?;
            if proto.no_lse {
                w.without_lse();
            }
            if proto.no_workspace {
                w.without_workspace();
            }
            proto
                .modes
                .iter()
                .map(|mode| {
                    let samples = self.time(&mut w, mode, proto)?;
                    let mut r = BenchResult::new(suite, shape.clone(), label, mode, samples);
                    // What the choice resolved to (auto: the dispatch table or the rule).
                    r.config = w.last_config.map(str::to_string);
                    r.schedule = w.last_schedule.map(|s| s.name().to_string());
                    Ok(r)
                })
                .collect()
        };
        run().unwrap_or_else(|e| {
            proto
                .modes
                .iter()
                .map(|m| BenchResult::failed(suite, shape.clone(), label, m, e.to_string()))
                .collect()
        })
    }

    /// Device buffers for `shape` filled with random values; with `cold`, enough input sets that
    /// consecutive calls never find their inputs in L2.
    pub fn workload(
        &self,
        shape: &Shape,
        choice: KernelChoice,
        cold: bool,
    ) -> Result<Workload, flashattn::Error> {
        self.workload_split(shape, choice, cold, None)
    }

    /// [`Gpu::workload`], a decode shape cut into `decode_splits` parts when given.
    pub fn workload_split(
        &self,
        shape: &Shape,
        choice: KernelChoice,
        cold: bool,
        decode_splits: Option<usize>,
    ) -> Result<Workload, flashattn::Error> {
        // A varlen shape packs its sequences: tokens, not batch x the longest length.
        let tokens = match shape.varlen.iter().sum::<usize>() {
            0 => shape.batch * shape.seqlen_q,
            total => total,
        };
        let q_len = tokens * shape.heads_q * shape.head_dim;
        // A paged cache holds each sequence's pages, scattered over the pool by a shuffled
        // block table (as an allocator that has run for a while leaves them).
        let paged = shape.page_size.map(|ps| {
            let width = shape.seqlen_k.div_ceil(ps);
            let num_pages = shape.batch * width;
            let mut table: Vec<i32> = (0..num_pages as i32).collect();
            table.shuffle(&mut StdRng::seed_from_u64(0x9a9e));
            (table, width, ps, num_pages)
        });
        let kv_len = match &paged {
            Some((_, _, ps, pages)) => pages * ps * shape.heads_kv * shape.head_dim,
            None if !shape.varlen.is_empty() => tokens * shape.heads_kv * shape.head_dim,
            None => shape.batch * shape.seqlen_k * shape.heads_kv * shape.head_dim,
        };
        let set_bytes = (2 * q_len + 2 * kv_len) * 2;
        let sets = if cold {
            (2 * self.l2_bytes).div_ceil(set_bytes).clamp(1, 64) + 1
        } else {
            1
        };
        let buffers = match dtype_of(shape) {
            DType::BF16 => Buffers::BF16(self.alloc_sets(sets, q_len, kv_len)?),
            DType::F16 => Buffers::F16(self.alloc_sets(sets, q_len, kv_len)?),
        };
        let mut qs = Strides::bshd(shape.seqlen_q, shape.heads_q, shape.head_dim);
        let call = if !shape.varlen.is_empty() {
            qs = Strides::packed(shape.heads_q, shape.head_dim);
            let cu: Vec<i32> = std::iter::once(0)
                .chain(shape.varlen.iter().scan(0, |acc, &l| {
                    *acc += l as i32;
                    Some(*acc)
                }))
                .collect();
            Call::Varlen {
                params: params_of(shape, choice),
                kvs: Strides::packed(shape.heads_kv, shape.head_dim),
                cu_seqlens: self.stream.clone_htod(&cu)?,
                tokens,
            }
        } else if shape.decode {
            let params = DecodeParams {
                seqlen_q: shape.seqlen_q,
                causal: shape.causal,
                num_splits: decode_splits,
                ..DecodeParams::new(
                    shape.batch,
                    shape.seqlen_k,
                    shape.heads_q,
                    shape.heads_kv,
                    shape.head_dim,
                )
            };
            let facts = self.facts()?;
            let splits = flashattn::decode_splits(&params, &facts);
            let workspace = self
                .stream
                .alloc_zeros::<f32>(flashattn::decode_workspace_len(&params, splits).max(1))?;
            let layout = if shape.heads_major {
                Strides::bhsd
            } else {
                Strides::bshd
            };
            let (kvs, table) = match paged {
                Some((table, width, ps, num_pages)) => (
                    layout(ps, shape.heads_kv, shape.head_dim),
                    Some(PageTable {
                        table: self.stream.clone_htod(&table)?,
                        width,
                        page_size: ps,
                        num_pages,
                    }),
                ),
                None => (layout(shape.seqlen_k, shape.heads_kv, shape.head_dim), None),
            };
            Call::Decode {
                params,
                facts,
                kvs,
                table,
                workspace,
            }
        } else {
            let heads = shape.heads_q;
            let per_head =
                |on: bool, value: &dyn Fn(usize) -> f32| -> Result<_, flashattn::Error> {
                    on.then(|| {
                        self.stream
                            .clone_htod(&(0..heads).map(value).collect::<Vec<f32>>())
                    })
                    .transpose()
                    .map_err(Into::into)
                };
            Call::Forward {
                params: params_of(shape, choice),
                kvs: Strides::bshd(shape.seqlen_k, shape.heads_kv, shape.head_dim),
                slopes: per_head(shape.mods.alibi, &|h| ScoreMods::alibi_slope(h, heads))?,
                sinks: per_head(shape.mods.sinks, &|_| ScoreMods::SINK)?,
                workspace: Some(flashattn::ForwardWorkspace::new(
                    &self.stream,
                    &*self.facts()?,
                    shape.head_dim,
                )?),
            }
        };
        Ok(Workload {
            last_config: None,
            last_schedule: None,
            call,
            qs,
            sets,
            buffers,
            lse: Some(self.stream.alloc_zeros::<f32>(shape.heads_q * tokens)?),
        })
    }

    fn alloc_sets<T: TestElement>(
        &self,
        sets: usize,
        q_len: usize,
        kv_len: usize,
    ) -> Result<Vec<InputSet<T>>, flashattn::Error> {
        let mut rng = StdRng::seed_from_u64(0x5eed);
        (0..sets)
            .map(|_| {
                let mut rand_buf = |n: usize| -> Result<CudaSlice<T>, flashattn::Error> {
                    let mut random = |n: usize| -> Vec<T> {
                        (0..n)
                            .map(|_| T::from_f64(rng.random_range(-2.0f32..2.0) as f64))
                            .collect()
                    };
                    if n <= TILED_FILL_ABOVE {
                        return Ok(self.stream.clone_htod(&random(n))?);
                    }
                    // Billions of host-drawn values took minutes a buffer (a decode cache of
                    // batch 64 x 32768 keys); a random block repeated on the device times the
                    // same (the kernels' speed does not depend on where values repeat).
                    let mut buf = self.stream.alloc_zeros::<T>(n)?;
                    let block = random(TILED_FILL_BLOCK);
                    self.stream
                        .memcpy_htod(&block, &mut buf.slice_mut(0..TILED_FILL_BLOCK))?;
                    let mut filled = TILED_FILL_BLOCK;
                    while filled < n {
                        let len = filled.min(n - filled);
                        let (done, mut rest) = buf.split_at_mut(filled);
                        self.stream
                            .memcpy_dtod(&done.slice(0..len), &mut rest.slice_mut(0..len))?;
                        filled += len;
                    }
                    Ok(buf)
                };
                Ok(InputSet {
                    q: rand_buf(q_len)?,
                    k: rand_buf(kv_len)?,
                    v: rand_buf(kv_len)?,
                    o: self.stream.alloc_zeros::<T>(q_len)?,
                })
            })
            .collect()
    }

    /// Per-call latencies in ms for one timing mode: `events` (back-to-back calls each between
    /// two events), `cold` (the same, rotating input sets) or `graph` (`graph_calls` calls
    /// captured in a CUDA graph, replay time / `graph_calls`).
    pub fn time(
        &self,
        w: &mut Workload,
        mode: &str,
        proto: &Protocol,
    ) -> Result<Vec<f64>, flashattn::Error> {
        let (iters, graph_calls) = (proto.iters, proto.graph_calls);
        let stream = &self.stream;
        for _ in 0..proto.warmup {
            w.launch(stream, 0)?;
        }
        stream.synchronize()?;
        // Warmed by the call itself, so the clock settles under this kernel's own power draw.
        let warm = std::time::Duration::from_secs_f64(proto.warm_ms.max(0.0) / 1e3);
        let start = std::time::Instant::now();
        while start.elapsed() < warm {
            for _ in 0..graph_calls {
                w.launch(stream, 0)?;
            }
            stream.synchronize()?;
        }
        let samples = match mode {
            MODE_EVENTS | MODE_COLD => {
                let rotate = mode == MODE_COLD;
                let mut marks = Vec::with_capacity(iters);
                for i in 0..iters {
                    let start = timing_event(stream)?;
                    w.launch(stream, if rotate { i % w.sets } else { 0 })?;
                    marks.push((start, timing_event(stream)?));
                }
                stream.synchronize()?;
                marks
                    .iter()
                    .map(|(s, e)| s.elapsed_ms(e).map(f64::from))
                    .collect::<Result<Vec<_>, _>>()?
            }
            MODE_GRAPH => {
                stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
                let captured: Result<(), flashattn::Error> =
                    (0..graph_calls).try_for_each(|_| w.launch(stream, 0));
                let graph = stream.end_capture(CUgraphInstantiate_flags(0))?;
                captured?;
                let graph = graph.ok_or_else(|| {
                    flashattn::Error::Dispatch("graph capture produced no graph".into())
                })?;
                graph.upload()?;
                for _ in 0..3 {
                    graph.launch()?;
                }
                let mut marks = Vec::with_capacity(iters);
                for _ in 0..iters {
                    let start = timing_event(stream)?;
                    graph.launch()?;
                    marks.push((start, timing_event(stream)?));
                }
                stream.synchronize()?;
                marks
                    .iter()
                    .map(|(s, e)| s.elapsed_ms(e).map(|ms| ms as f64 / graph_calls as f64))
                    .collect::<Result<Vec<_>, _>>()?
            }
            other => {
                return Err(flashattn::Error::Dispatch(format!(
                    "unknown timing mode {other}"
                )));
            }
        };
        Ok(samples)
    }
}

struct InputSet<T> {
    q: CudaSlice<T>,
    k: CudaSlice<T>,
    v: CudaSlice<T>,
    o: CudaSlice<T>,
}

enum Buffers {
    F16(Vec<InputSet<f16>>),
    BF16(Vec<InputSet<bf16>>),
}

/// The block table of a paged decode workload.
struct PageTable {
    table: CudaSlice<i32>,
    width: usize,
    page_size: usize,
    num_pages: usize,
}

/// Which entry point a workload calls, with what it needs beyond the tensors.
enum Call {
    Forward {
        params: AttentionParams,
        kvs: Strides,
        /// ALiBi slopes and sinks, `[heads_q]`, when the shape has them.
        slopes: Option<CudaSlice<f32>>,
        sinks: Option<CudaSlice<f32>>,
        /// The calls' workspace, `None` without one ([`Workload::without_workspace`]).
        workspace: Option<flashattn::ForwardWorkspace>,
    },
    /// A packed variable-length batch: the same prefix sums for queries and keys.
    Varlen {
        params: AttentionParams,
        kvs: Strides,
        cu_seqlens: CudaSlice<i32>,
        tokens: usize,
    },
    Decode {
        params: DecodeParams,
        facts: Arc<flashattn::DeviceFacts>,
        kvs: Strides,
        table: Option<PageTable>,
        workspace: CudaSlice<f32>,
    },
}

/// Device buffers and parameters of one benchmark shape, ready to launch repeatedly.
pub struct Workload {
    call: Call,
    qs: Strides,
    sets: usize,
    buffers: Buffers,
    /// Where the calls store LSE; `None`: they store O only ([`Workload::without_lse`]).
    lse: Option<CudaSlice<f32>>,
    /// The configuration the last launch ran (what the kernel choice resolved to; `decode` for
    /// the decode path, which has one kernel).
    pub last_config: Option<&'static str>,
    /// How the last forward launch dealt its tiles (`None` for decode).
    pub last_schedule: Option<flashattn::Schedule>,
}

impl Workload {
    /// From now on the calls store O only, not LSE (what SDPA's inference calls return).
    pub fn without_lse(&mut self) {
        self.lse = None;
    }

    /// From now on the forward calls get no workspace (none splits its last tiles).
    pub fn without_workspace(&mut self) {
        if let Call::Forward { workspace, .. } = &mut self.call {
            *workspace = None;
        }
    }

    /// Launch once on `stream` with input set `set` (asynchronous).
    pub fn launch(&mut self, stream: &Arc<CudaStream>, set: usize) -> Result<(), flashattn::Error> {
        fn go<T: flashattn::Element>(
            stream: &Arc<CudaStream>,
            call: &mut Call,
            qs: Strides,
            s: &mut InputSet<T>,
            lse: Option<&mut CudaSlice<f32>>,
        ) -> Result<(&'static str, Option<flashattn::Schedule>), flashattn::Error> {
            let ran = |info: flashattn::LaunchInfo| (info.config.name, Some(info.schedule));
            match call {
                Call::Forward {
                    params,
                    kvs,
                    slopes,
                    sinks,
                    workspace,
                } => {
                    let heads = HeadVectors {
                        alibi_slopes: slopes.as_ref(),
                        sinks: sinks.as_ref(),
                    };
                    let (q, k, v) = (
                        Tensor::new(&s.q, qs),
                        Tensor::new(&s.k, *kvs),
                        Tensor::new(&s.v, *kvs),
                    );
                    let o = TensorMut::new(&mut s.o, qs);
                    let info = match workspace {
                        Some(w) => flashattn::forward_with_workspace(
                            stream, params, q, k, v, o, lse, heads, w,
                        )?,
                        None => flashattn::forward_with(stream, params, q, k, v, o, lse, heads)?,
                    };
                    Ok(ran(info))
                }
                Call::Varlen {
                    params,
                    kvs,
                    cu_seqlens,
                    tokens,
                } => Ok(ran(flashattn::forward_varlen(
                    stream,
                    params,
                    &Varlen::new(&*cu_seqlens, &*cu_seqlens, *tokens, *tokens),
                    Tensor::new(&s.q, qs),
                    Tensor::new(&s.k, *kvs),
                    Tensor::new(&s.v, *kvs),
                    TensorMut::new(&mut s.o, qs),
                    lse,
                    HeadVectors::none(),
                )?)),
                Call::Decode {
                    params,
                    facts,
                    kvs,
                    table,
                    workspace,
                } => {
                    let paged = table.as_ref().map(|t| PagedKv {
                        block_table: &t.table,
                        width: t.width,
                        page_size: t.page_size,
                        num_pages: t.num_pages,
                    });
                    flashattn::decode(
                        stream,
                        facts,
                        params,
                        Tensor::new(&s.q, qs),
                        Tensor::new(&s.k, *kvs),
                        Tensor::new(&s.v, *kvs),
                        paged,
                        None::<&CudaSlice<i32>>,
                        TensorMut::new(&mut s.o, qs),
                        lse,
                        Some(workspace),
                    )?;
                    Ok(("decode", None))
                }
            }
        }
        let i = set % self.sets;
        let lse = self.lse.as_mut();
        let (name, schedule) = match &mut self.buffers {
            Buffers::F16(sets) => go(stream, &mut self.call, self.qs, &mut sets[i], lse),
            Buffers::BF16(sets) => go(stream, &mut self.call, self.qs, &mut sets[i], lse),
        }?;
        self.last_config = Some(name);
        self.last_schedule = schedule;
        Ok(())
    }
}

fn timing_event(
    stream: &Arc<CudaStream>,
) -> Result<cudarc::driver::CudaEvent, cudarc::driver::DriverError> {
    stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
}

/// The launch-layer parameters of a report shape.
pub fn params_of(shape: &Shape, kernel: KernelChoice) -> AttentionParams {
    AttentionParams {
        batch: shape.batch,
        seqlen_q: shape.seqlen_q,
        seqlen_k: shape.seqlen_k,
        heads_q: shape.heads_q,
        heads_kv: shape.heads_kv,
        head_dim: shape.head_dim,
        causal: shape.causal,
        window: Window::new(shape.mods.window_left, shape.mods.window_right),
        softcap: shape.mods.softcap.map(|c| c as f32),
        softmax_scale: None,
        kernel,
        ..AttentionParams::new(
            shape.batch,
            shape.seqlen_q,
            shape.seqlen_k,
            shape.heads_q,
            shape.head_dim,
        )
    }
}

/// The launch-layer dtype of a report shape.
pub fn dtype_of(shape: &Shape) -> DType {
    if shape.dtype == "bf16" {
        DType::BF16
    } else {
        DType::F16
    }
}

/// Compiled configurations that can run `shape` on `device`: a softcap or ALiBi call only those
/// compiled with score modifiers (any other is `Error::FeatureNotCompiled`, not a candidate).
pub fn configs_for(shape: &Shape, device: &flashattn::DeviceFacts) -> Vec<&'static KernelConfig> {
    if shape.decode {
        return Vec::new(); // one decode kernel: no configurations to choose from
    }
    let dtype = dtype_of(shape);
    flashattn::kernel_configs()
        .iter()
        .filter(|c| c.dtype == dtype && c.head_dim == shape.head_dim && device.can_run(c))
        .filter(|c| c.score_mods || !shape.mods.needs_score_mods())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_modifier_calls_are_offered_only_score_modifier_configs() {
        let h100 = flashattn::DeviceFacts::new("H100", 132, 90, 227 * 1024);
        let plain = Shape::self_attention("f16", 4, 16, 512, 64, false);
        let all = configs_for(&plain, &h100);
        assert!(
            all.iter().any(|c| !c.score_mods),
            "plain calls take every configuration"
        );
        // The suites' modifiers: softcap and ALiBi need a score-modifier kernel, sinks run on
        // every configuration.
        let mut with_kernel = 0;
        for mods in crate::suites::modifiers() {
            let needs_kernel = mods.needs_score_mods();
            let some = configs_for(&plain.clone().with_mods(mods), &h100);
            if needs_kernel {
                with_kernel += 1;
                assert!(!some.is_empty() && some.len() < all.len());
                assert!(some.iter().all(|c| c.score_mods));
            } else {
                assert_eq!(some.len(), all.len());
            }
        }
        assert_eq!(with_kernel, 2, "softcap and ALiBi");
    }
}
