//! The forward launch: typed slices in, validated raw call out.

use std::ffi::CStr;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceSlice};
use flashattn_sys as sys;

use crate::config::{KernelConfig, candidates, kernel_configs};
use crate::device::DeviceFacts;
use crate::error::{Error, Result};
use crate::problem::{
    AttentionParams, KernelChoice, RawForward, RawLse, RawTensor, RawVarlen, RawVector, Strides,
    validate, validate_varlen,
};
use crate::{DType, Element};

/// An input tensor: any cudarc device buffer of `T` plus its layout.
pub struct Tensor<'a, S> {
    /// The buffer (`CudaSlice<T>`, `CudaView<T>`, ...).
    pub data: &'a S,
    /// Element strides of `[batch, seqlen, heads, head_dim]`.
    pub strides: Strides,
}

impl<'a, S> Tensor<'a, S> {
    /// Pair a buffer with its layout.
    pub fn new(data: &'a S, strides: Strides) -> Self {
        Tensor { data, strides }
    }
}

/// An output tensor: a mutable cudarc device buffer of `T` plus its layout.
pub struct TensorMut<'a, S> {
    /// The buffer (`CudaSlice<T>`, `CudaViewMut<T>`, ...).
    pub data: &'a mut S,
    /// Element strides of `[batch, seqlen, heads, head_dim]`.
    pub strides: Strides,
}

impl<'a, S> TensorMut<'a, S> {
    /// Pair a buffer with its layout.
    pub fn new(data: &'a mut S, strides: Strides) -> Self {
        TensorMut { data, strides }
    }
}

/// The per-head f32 device vectors of a call, `[heads_q]` each (see [`RawForward`] for their
/// conventions): ALiBi slopes and attention sinks. Any cudarc buffer of f32 (`CudaSlice`,
/// `CudaView`, ...); [`HeadVectors::none`] for neither.
pub struct HeadVectors<'a, A, S> {
    /// ALiBi slopes: key `j` of query `i` gets `-alibi_slopes[h] * |i + diag - j|`.
    pub alibi_slopes: Option<&'a A>,
    /// Attention sinks: natural-log logits joining each head's softmax denominator.
    pub sinks: Option<&'a S>,
}

impl HeadVectors<'static, CudaSlice<f32>, CudaSlice<f32>> {
    /// Neither ALiBi slopes nor sinks.
    pub fn none() -> Self {
        HeadVectors {
            alibi_slopes: None,
            sinks: None,
        }
    }
}

/// What a successful launch ran.
#[derive(Clone, Debug)]
pub struct LaunchInfo {
    /// The kernel configuration that was launched: the chosen one, or the fallback tile a
    /// warp-specialized configuration handed the call to ([`KernelConfig::warp_specialized`]).
    pub config: &'static KernelConfig,
    /// How the launch dealt its query tiles to the SMs.
    pub schedule: Schedule,
    /// How Q, K and V reached shared memory.
    pub feed: Feed,
}

/// How a forward launch brought Q, K and V into shared memory: TMA boxes issued by one thread
/// (the warp-specialized Hopper tiles, and the one-tile-per-CTA Hopper tiles where tensor maps
/// describe the tensors and the call is not packed varlen), or every thread's cp.async copies
/// (the portable kernel, and the Hopper tiles otherwise: packed varlen tensors, strides a tensor
/// map cannot describe such as a batch-broadcast K/V). Tests and the fuzzer read it to know which
/// path a case exercised (docs/architecture.md, the Hopper kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Feed {
    /// Every thread copies its 16-byte chunks with cp.async.
    CpAsync,
    /// One thread issues TMA boxes from host-built tensor maps, counted by mbarriers.
    Tma,
}

impl Feed {
    /// The feed `flashattn_fwd` reported (`FlashAttnFwdParams::feed_used`).
    fn from_sys(value: i32) -> Option<Feed> {
        use sys::FlashAttnFeed as F;
        match u32::try_from(value).ok()? {
            v if v == F::FLASHATTN_FEED_CP_ASYNC.0 => Some(Feed::CpAsync),
            v if v == F::FLASHATTN_FEED_TMA.0 => Some(Feed::Tma),
            _ => None,
        }
    }

    /// A short name for reports: `cp-async`, `tma`.
    pub fn name(self) -> &'static str {
        match self {
            Feed::CpAsync => "cp-async",
            Feed::Tma => "tma",
        }
    }
}

impl std::fmt::Display for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a forward launch dealt its query tiles to the SMs: decided on the host for each call
/// from its shape, the configuration and the device (docs/architecture.md, the warp-specialized
/// kernel). The warp-specialized Hopper tiles walk where a launch has more tiles than SMs and
/// the walk is expected to pay; every other launch runs one CTA per tile. Tests and the fuzzer
/// read it to know which schedule a case exercised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Schedule {
    /// One CTA per query tile: the grid holds every tile.
    TilePerCta,
    /// One CTA per SM, each walking several tiles (round robin; short last tiles dealt apart).
    Walk,
    /// A causal walk: each long query tile paired with a short one of its (batch, head) pair.
    CausalFolds,
    /// A walk whose last full tiles had their keys split across the SMs and merged through the
    /// call's workspace ([`forward_with_workspace`]).
    SplitTail,
}

impl Schedule {
    /// The schedule `flashattn_fwd` reported (`FlashAttnFwdParams::schedule_used`).
    fn from_sys(value: i32) -> Option<Schedule> {
        use sys::FlashAttnSchedule as S;
        match u32::try_from(value).ok()? {
            v if v == S::FLASHATTN_SCHEDULE_TILE_PER_CTA.0 => Some(Schedule::TilePerCta),
            v if v == S::FLASHATTN_SCHEDULE_WALK.0 => Some(Schedule::Walk),
            v if v == S::FLASHATTN_SCHEDULE_CAUSAL_FOLDS.0 => Some(Schedule::CausalFolds),
            v if v == S::FLASHATTN_SCHEDULE_SPLIT_TAIL.0 => Some(Schedule::SplitTail),
            _ => None,
        }
    }

    /// A short name for reports: `tile-per-cta`, `walk`, `causal-folds`, `split-tail`.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::TilePerCta => "tile-per-cta",
            Schedule::Walk => "walk",
            Schedule::CausalFolds => "causal-folds",
            Schedule::SplitTail => "split-tail",
        }
    }
}

impl std::fmt::Display for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Launch forward attention on `stream`: `o = softmax(scale * q k^T + mask) v`, and the
/// log-sum-exp of each query row into `lse` (f32 `[batch, heads_q, seqlen_q]`) if given.
///
/// Shapes: q and o `[batch, seqlen_q, heads_q, head_dim]`, k and v `[batch, seqlen_k,
/// heads_kv, head_dim]`, each with its own [`Strides`]. Everything is validated before the
/// launch ([`Error::is_validation`]), including that every buffer belongs to `stream`'s context
/// ([`Error::ContextMismatch`]); the call is asynchronous and never synchronizes.
///
/// # Host cost and stream ordering
///
/// Our own host work per call is validation, the kernel choice (remembered per thread for the
/// last few shapes after the first call; the device's facts are read once per device), the C
/// parameter struct (for the warp-specialized Hopper kernels also the TMA tensor maps, which each
/// thread remembers for the tensors it passed last) and the launch. Apart from the launch itself, its only driver calls are
/// `cuCtxGetCurrent` (the launch goes through the CUDA runtime, which uses the thread's current
/// context, so [`cudarc::driver::CudaContext::bind_to_thread`] runs first) and a
/// `cudaGetDevice` (the shared-memory opt-in of kernels above 48 KiB, `cudaFuncSetAttribute`,
/// and the check below run once per kernel and device). Nothing is allocated unless the
/// call fails.
///
/// On sm_90 and later the kernel is launched as a programmatic dependent of the kernel ahead of
/// it on the stream (except the persistent warp-specialized launch): it is launched while that
/// kernel finishes, and its CTAs wait for it (and for its writes to be visible) before touching
/// any memory, so the stream's order holds as for a plain launch. It does not let a kernel
/// launched after it start early. `FLASHATTN_FORWARD_SERIAL_LAUNCH=1` launches plainly.
///
/// The rest is cudarc's, when it orders buffers between streams: only if the context's event
/// tracking is on (cudarc's default, [`cudarc::driver::CudaContext::is_event_tracking`]) *and*
/// it has created a second stream ([`cudarc::driver::CudaContext::new_stream`]; a program on
/// the context's default stream alone pays nothing). Then each buffer passed here costs event
/// calls: an input (`q`, `k`, `v`, ALiBi slopes, sinks) one `cuStreamWaitEvent` on its last
/// write and one `cuEventRecord` of this launch as a read; an output (`o`, `lse`) two waits (its
/// last read and last write) and one record, each call preceded by a `cuCtxGetCurrent`. For a
/// plain call with `lse` that is 12 driver calls besides the launch, several microseconds.
/// None of them can return its status, so cudarc parks a failure in the context; the call
/// collects it before and after the launch and fails with it ([`Error::Driver`]).
/// In return this launch runs after every earlier write of its inputs and every earlier use
/// of its outputs on any stream of the context, later users on other streams (and the
/// buffers' eventual free) wait for it, and nothing else is required of the caller.
///
/// With tracking off (`unsafe { ctx.disable_event_tracking() }`, which cudarc documents as
/// applying to the buffers allocated after it: turn it off before allocating) these calls
/// disappear, and the
/// ordering becomes the caller's: use a buffer on another stream only after that stream has
/// waited for this launch (an event, [`cudarc::driver::CudaStream::join`]), never launch here
/// with inputs still being written on another stream, and do not drop a buffer while a launch
/// on a stream other than the one that allocated it may still be using it. A program that
/// allocates, launches and frees on one stream loses nothing by turning tracking off. This
/// crate never changes the setting; [`forward_raw`] takes raw addresses and leaves all
/// ordering to the caller whatever the setting.
pub fn forward<T, Q, K, V, O>(
    stream: &CudaStream,
    params: &AttentionParams,
    q: Tensor<'_, Q>,
    k: Tensor<'_, K>,
    v: Tensor<'_, V>,
    o: TensorMut<'_, O>,
    lse: Option<&mut CudaSlice<f32>>,
) -> Result<LaunchInfo>
where
    T: Element,
    Q: DevicePtr<T>,
    K: DevicePtr<T>,
    V: DevicePtr<T>,
    O: DevicePtrMut<T>,
{
    forward_with(stream, params, q, k, v, o, lse, HeadVectors::none())
}

/// [`forward`] with per-head device vectors: ALiBi slopes and attention sinks (f32
/// `[heads_q]` each, see [`HeadVectors`]). Together with the scalar options of
/// [`AttentionParams`] (`window`, `alignment`, `softcap`) this is every mask and score modifier.
#[allow(clippy::too_many_arguments)]
pub fn forward_with<T, Q, K, V, O, A, S>(
    stream: &CudaStream,
    params: &AttentionParams,
    q: Tensor<'_, Q>,
    k: Tensor<'_, K>,
    v: Tensor<'_, V>,
    o: TensorMut<'_, O>,
    lse: Option<&mut CudaSlice<f32>>,
    heads: HeadVectors<'_, A, S>,
) -> Result<LaunchInfo>
where
    T: Element,
    Q: DevicePtr<T>,
    K: DevicePtr<T>,
    V: DevicePtr<T>,
    O: DevicePtrMut<T>,
    A: DevicePtr<f32>,
    S: DevicePtr<f32>,
{
    forward_tensors(stream, params, q, k, v, o, lse, heads, None, None, ())
}

/// f32 elements of the workspace [`forward_with_workspace`] needs on `device` for head dim
/// `head_dim` to split a launch's last tiles (any call of that head dim).
pub fn forward_workspace_len(device: &DeviceFacts, head_dim: usize) -> usize {
    let head_dim = i32::try_from(head_dim).unwrap_or(0);
    let sms = i32::try_from(device.sm_count).unwrap_or(0);
    // SAFETY: a pure function of its arguments.
    let floats = unsafe { sys::flashattn_fwd_workspace_floats(head_dim, sms) };
    usize::try_from(floats).unwrap_or(0)
}

/// The split tail's f32 scratch for [`forward_with_workspace`] (see [`RawForward::workspace`]):
/// [`forward_workspace_len`] elements, made zeroed.
///
/// The kernel counts each split tile's finished pieces in it and the piece that completes a
/// tile resets its counter, so every call that completes leaves it zeroed for the next. A
/// buffer holding anything else would leave tiles unmerged and their O unwritten, with no
/// error; that is why the safe API takes this type, which only [`ForwardWorkspace::new`]
/// makes, rather than any f32 slice. Calls that use it are ordered on the device like any
/// other cudarc buffer's users, so one workspace may serve several streams in turn.
pub struct ForwardWorkspace {
    floats: CudaSlice<f32>,
}

impl ForwardWorkspace {
    /// A zeroed workspace on `stream` for calls of head dim `head_dim` on `device` (at least
    /// one element, so an allocation is always made).
    pub fn new(stream: &Arc<CudaStream>, device: &DeviceFacts, head_dim: usize) -> Result<Self> {
        let len = forward_workspace_len(device, head_dim).max(1);
        Ok(Self {
            floats: stream.alloc_zeros::<f32>(len)?,
        })
    }
}

/// [`forward_with`] with the split tail's workspace: a persistent warp-specialized launch on
/// Hopper whose last tiles would leave SMs idle (head dim 128, neither causal nor windowed) may
/// split those tiles' keys across the SMs and merge the parts through it, a few percent faster
/// at 4,096 keys and more (docs/benchmarks/2026-11-29-h200-split-tail.md). A workspace made for
/// another head dim or device may be too short, and is then not used.
#[allow(clippy::too_many_arguments)]
pub fn forward_with_workspace<T, Q, K, V, O, A, S>(
    stream: &CudaStream,
    params: &AttentionParams,
    q: Tensor<'_, Q>,
    k: Tensor<'_, K>,
    v: Tensor<'_, V>,
    o: TensorMut<'_, O>,
    lse: Option<&mut CudaSlice<f32>>,
    heads: HeadVectors<'_, A, S>,
    workspace: &mut ForwardWorkspace,
) -> Result<LaunchInfo>
where
    T: Element,
    Q: DevicePtr<T>,
    K: DevicePtr<T>,
    V: DevicePtr<T>,
    O: DevicePtrMut<T>,
    A: DevicePtr<f32>,
    S: DevicePtr<f32>,
{
    let workspace = &mut workspace.floats;
    check_context(stream, "workspace", &*workspace)?;
    let len = workspace.len();
    let (ptr, guard) = workspace.device_ptr_mut(stream);
    forward_tensors(
        stream,
        params,
        q,
        k,
        v,
        o,
        lse,
        heads,
        None,
        Some(RawVector { ptr, len }),
        guard,
    )
}

/// [`forward_with`] behind every entry point: the tensors' device pointers (guards held for the
/// launch), then the raw launch, dense or with `varlen`'s sequences. `callers_guards` are the
/// caller's own (of the sequences or the workspace, taken before this is called): they are
/// dropped with these after the launch, and the driver errors of all of them collected once.
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward_tensors<T, Q, K, V, O, A, S, G>(
    stream: &CudaStream,
    params: &AttentionParams,
    q: Tensor<'_, Q>,
    k: Tensor<'_, K>,
    v: Tensor<'_, V>,
    o: TensorMut<'_, O>,
    lse: Option<&mut CudaSlice<f32>>,
    heads: HeadVectors<'_, A, S>,
    varlen: Option<&RawVarlen>,
    workspace: Option<RawVector>,
    callers_guards: G,
) -> Result<LaunchInfo>
where
    T: Element,
    Q: DevicePtr<T>,
    K: DevicePtr<T>,
    V: DevicePtr<T>,
    O: DevicePtrMut<T>,
    A: DevicePtr<f32>,
    S: DevicePtr<f32>,
{
    // Before any guard is taken: taking one already queues work for the buffer on `stream`.
    check_context(stream, "q", q.data)?;
    check_context(stream, "k", k.data)?;
    check_context(stream, "v", v.data)?;
    check_context(stream, "o", &*o.data)?;
    if let Some(l) = lse.as_deref() {
        check_context(stream, "lse", l)?;
    }
    if let Some(a) = heads.alibi_slopes {
        check_context(stream, "alibi_slopes", a)?;
    }
    if let Some(s) = heads.sinks {
        check_context(stream, "sinks", s)?;
    }
    let slopes = heads.alibi_slopes.map(|a| (a.device_ptr(stream), a.len()));
    let sinks = heads.sinks.map(|s| (s.device_ptr(stream), s.len()));
    let (q_ptr, q_guard) = q.data.device_ptr(stream);
    let (k_ptr, k_guard) = k.data.device_ptr(stream);
    let (v_ptr, v_guard) = v.data.device_ptr(stream);
    let o_len = o.data.len();
    let (o_ptr, o_guard) = o.data.device_ptr_mut(stream);
    let lse_len = lse.as_ref().map(|l| l.len());
    let lse_ptr = lse.map(|l| l.device_ptr_mut(stream));
    guard_errors(stream)?;
    let tensor = |ptr: u64, len: usize, strides: Strides| RawTensor {
        ptr,
        len,
        dtype: T::DTYPE,
        strides,
    };
    let raw = RawForward {
        q: tensor(q_ptr, q.data.len(), q.strides),
        k: tensor(k_ptr, k.data.len(), k.strides),
        v: tensor(v_ptr, v.data.len(), v.strides),
        o: tensor(o_ptr, o_len, o.strides),
        lse: lse_ptr.as_ref().map(|(ptr, _)| RawLse {
            ptr: *ptr,
            len: lse_len.unwrap_or(0),
        }),
        alibi_slopes: slopes.as_ref().map(|((ptr, _), len)| RawVector {
            ptr: *ptr,
            len: *len,
        }),
        sinks: sinks.as_ref().map(|((ptr, _), len)| RawVector {
            ptr: *ptr,
            len: *len,
        }),
        workspace,
    };
    // SAFETY: the pointers come from live cudarc buffers of the stated lengths and dtypes;
    // the guards above (and the caller's, for `varlen`) order this launch after earlier writes
    // and record it for later use.
    let launched = unsafe { launch_raw(stream, params, &raw, varlen) };
    // Dropping the guards records the launch for the buffers' later users; a failed record
    // must fail this call. (A refused call leaves any such failure parked for the next check
    // rather than hide its own error.)
    drop((
        slopes,
        sinks,
        q_guard,
        k_guard,
        v_guard,
        o_guard,
        lse_ptr,
        callers_guards,
    ));
    let info = launched?;
    guard_errors(stream)?;
    Ok(info)
}

/// Refuse a buffer of another context than `stream`'s: cudarc's `device_ptr` does not check,
/// and the kernel would address another context's memory. Compared as cudarc's own
/// `memcpy_dtod` compares them, by the raw `CUcontext` (two handles of a device's primary
/// context are one context).
pub(crate) fn check_context<T, B: DeviceSlice<T>>(
    stream: &CudaStream,
    tensor: &'static str,
    buf: &B,
) -> Result<()> {
    if buf.stream().context() == stream.context() {
        Ok(())
    } else {
        Err(Error::ContextMismatch { tensor })
    }
}

/// The driver errors of cudarc's stream-ordering guards: taking one may queue a
/// `cuStreamWaitEvent` and dropping it a `cuEventRecord`, and neither can return a status, so
/// cudarc parks a failure in the context's error slot. Taking it here makes the call whose
/// ordering failed report it. The slot is context-wide and keeps only the last failure, so one
/// parked by other work on the context (cudarc's drops) is reported here too, as the next
/// `bind_to_thread` would. One atomic swap: cheap enough for every launch.
pub(crate) fn guard_errors(stream: &CudaStream) -> Result<()> {
    Ok(stream.context().check_err()?)
}

/// Launch from raw device addresses (for frameworks that hold their own buffers, with a dtype
/// known only at run time). Performs the same validation as [`forward`].
///
/// # Safety
/// Each address must point to device memory of at least `len` elements of its dtype that
/// stays valid until the launch completes, usable from `stream`'s context; other work on
/// those buffers must be ordered with `stream` by the caller.
pub unsafe fn forward_raw(
    stream: &CudaStream,
    params: &AttentionParams,
    t: &RawForward,
) -> Result<LaunchInfo> {
    // SAFETY: the caller's contract.
    unsafe { launch_raw(stream, params, t, None) }
}

/// What [`forward_raw`] would pass to the C entry point `flashattn_fwd`, without launching:
/// the validated parameter struct and the kernel configuration it names. For callers that call
/// the C entry point themselves (a C host, or a measurement of what the Rust layer costs).
pub fn prepare_forward(
    stream: &CudaStream,
    params: &AttentionParams,
    t: &RawForward,
) -> Result<(sys::FlashAttnFwdParams, &'static KernelConfig)> {
    let device = crate::device::cached_device_facts(stream.context())?;
    prepare_launch(params, t, None, device)
}

/// Validate (dense or varlen) and launch.
///
/// # Safety
/// As [`forward_raw`], for the sequence vectors of `varlen` too.
pub(crate) unsafe fn launch_raw(
    stream: &CudaStream,
    params: &AttentionParams,
    t: &RawForward,
    varlen: Option<&RawVarlen>,
) -> Result<LaunchInfo> {
    let ctx = stream.context();
    let device = crate::device::cached_device_facts(ctx)?;
    let (mut p, config) = prepare_launch(params, t, varlen, device)?;
    // The C side launches through the CUDA runtime, which uses the thread's current context.
    ctx.bind_to_thread()?;
    // SAFETY: `p` is fully initialised and validated; the caller vouches for the pointers.
    let status = unsafe { sys::flashattn_fwd(&mut p, stream.cu_stream() as *mut std::ffi::c_void) };
    status_to_result(status, &p, params, t.q.dtype)?;
    // A warp-specialized configuration hands a call its tensor maps cannot describe to its
    // fallback tile and reports that one (cuda-src/sm90/ws_kernel.cuh).
    let ran = match u32::try_from(p.config_used) {
        Ok(id) if id != config.id => kernel_configs()
            .iter()
            .find(|c| c.id == id)
            .unwrap_or(config),
        _ => config,
    };
    // Every schedule the C side reports is one of the four; anything else would be a broken
    // build, which the ABI check already refuses.
    let schedule = Schedule::from_sys(p.schedule_used).unwrap_or(Schedule::TilePerCta);
    let feed = Feed::from_sys(p.feed_used).unwrap_or(Feed::CpAsync);
    Ok(LaunchInfo {
        config: ran,
        schedule,
        feed,
    })
}

/// Everything a launch does on the host before the FFI call: validation, the kernel choice
/// and the C parameters. No GPU, no driver call, no allocation unless it returns an error (a
/// unit test holds it to that): it runs on every launch.
pub(crate) fn prepare_launch(
    params: &AttentionParams,
    t: &RawForward,
    varlen: Option<&RawVarlen>,
    device: &'static DeviceFacts,
) -> Result<(sys::FlashAttnFwdParams, &'static KernelConfig)> {
    let scale = match varlen {
        None => validate(params, t)?,
        Some(vl) => validate_varlen(params, t, vl)?,
    };
    let cc = device.compute_capability;
    crate::require_supported_compute_capability((cc / 10) as i32, (cc % 10) as i32)?;
    let config = launch_config(params, t.q.dtype, device, t.needs_score_mods(params))?;
    let (window_left, window_right) = params.ffi_window();

    // Packed varlen tensors have no batch stride: pass 0, which the kernels ignore anyway.
    let s = |x: &RawTensor| Strides {
        batch: if varlen.is_some() { 0 } else { x.strides.batch },
        ..x.strides
    };
    let (qs, ks, vs, os) = (s(&t.q), s(&t.k), s(&t.v), s(&t.o));
    let p = sys::FlashAttnFwdParams {
        q: t.q.ptr as *const _,
        k: t.k.ptr as *const _,
        v: t.v.ptr as *const _,
        o: t.o.ptr as *mut _,
        lse: t.lse.map_or(std::ptr::null_mut(), |l| l.ptr as *mut f32),
        q_batch_stride: qs.batch,
        q_row_stride: qs.row,
        q_head_stride: qs.head,
        k_batch_stride: ks.batch,
        k_row_stride: ks.row,
        k_head_stride: ks.head,
        v_batch_stride: vs.batch,
        v_row_stride: vs.row,
        v_head_stride: vs.head,
        o_batch_stride: os.batch,
        o_row_stride: os.row,
        o_head_stride: os.head,
        // validate() bounded every size below i32::MAX.
        batch: params.batch as i32,
        seqlen_q: params.seqlen_q as i32,
        seqlen_k: params.seqlen_k as i32,
        heads_q: params.heads_q as i32,
        heads_kv: params.heads_kv as i32,
        head_dim: params.head_dim as i32,
        softmax_scale: scale,
        causal: params.causal as i32,
        dtype: t.q.dtype.to_sys(),
        compute_capability: cc as i32,
        config_id: config.id as i32,
        cuda_error: 0,
        config_used: -1,
        window_left,
        window_right,
        causal_top_left: (params.alignment == crate::MaskAlignment::TopLeft) as i32,
        softcap: params.softcap.unwrap_or(0.0),
        alibi_slopes: t
            .alibi_slopes
            .map_or(std::ptr::null(), |a| a.ptr as *const f32),
        sinks: t.sinks.map_or(std::ptr::null(), |s| s.ptr as *const f32),
        cu_seqlens_q: varlen.map_or(std::ptr::null(), |vl| vl.cu_seqlens_q.0 as *const i32),
        cu_seqlens_k: varlen.map_or(std::ptr::null(), |vl| vl.cu_seqlens_k.0 as *const i32),
        seqused_k: varlen
            .and_then(|vl| vl.seqused_k)
            .map_or(std::ptr::null(), |(ptr, _)| ptr as *const i32),
        // validate_varlen bounded both by MAX_SEQLEN.
        total_q: varlen.map_or(0, |vl| vl.total_q as i32),
        total_k: varlen.map_or(0, |vl| vl.total_k as i32),
        causal_section: 0, // flashattn_fwd sets it
        workspace: t
            .workspace
            .map_or(std::ptr::null_mut(), |w| w.ptr as *mut f32),
        workspace_floats: t.workspace.map_or(0, |w| w.len as i64),
        schedule_used: 0, // flashattn_fwd sets it
        feed_used: 0,     // and this
    };
    Ok((p, config))
}

/// Everything an automatic choice depends on that changes between calls. The rest is fixed for
/// the life of the process: the tuned tables (embedded, or the user's read once), the compiled
/// registry, and the device's facts (cached once per device, so their address names them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct AutoChoiceKey {
    device: *const DeviceFacts,
    dtype: DType,
    head_dim: usize,
    causal: bool,
    batch: usize,
    heads_q: usize,
    seqlen_q: usize,
    seqlen_k: usize,
    // Softcap and ALiBi calls may have tuned rows of their own (dispatch.rs).
    modifier: Option<crate::dispatch::RowModifier>,
}

/// A thread's most recent automatic choices: the tuned-table search (a log2 distance to every
/// row of the GPU model) and the built-in rule (several passes over the registry) cost more
/// than the rest of the host side, and a model calls the same few shapes over and over.
struct AutoChoices {
    entries: [Option<(AutoChoiceKey, &'static KernelConfig)>; AUTO_CHOICE_SLOTS],
    /// The slot the next new shape replaces (round robin).
    next: usize,
}

const AUTO_CHOICE_SLOTS: usize = 8;

thread_local! {
    static AUTO_CHOICES: std::cell::RefCell<AutoChoices> = const {
        std::cell::RefCell::new(AutoChoices {
            entries: [None; AUTO_CHOICE_SLOTS],
            next: 0,
        })
    };
}

/// [`choose_config_for`] on the launch path: automatic choices are remembered per thread
/// (only successful ones, so an unusable `FLASHATTN_DISPATCH` table still fails every call);
/// a named configuration is looked up each time (a short scan of its dtype and head dim).
pub(crate) fn launch_config(
    params: &AttentionParams,
    dtype: DType,
    device: &'static DeviceFacts,
    score_mods: bool,
) -> Result<&'static KernelConfig> {
    if !matches!(params.kernel, KernelChoice::Auto) {
        return choose_config_for(params, dtype, device, score_mods);
    }
    let key = AutoChoiceKey {
        device,
        dtype,
        head_dim: params.head_dim,
        causal: params.causal,
        batch: params.batch,
        heads_q: params.heads_q,
        seqlen_q: params.seqlen_q,
        seqlen_k: params.seqlen_k,
        modifier: crate::dispatch::RowModifier::of_call(params.softcap.is_some(), score_mods),
    };
    if let Some(config) = remembered_auto_choice(&key) {
        return Ok(config);
    }
    let config = choose_config_for(params, dtype, device, score_mods)?;
    AUTO_CHOICES.with_borrow_mut(|memo| {
        let slot = memo.next;
        memo.entries[slot] = Some((key, config));
        memo.next = (slot + 1) % AUTO_CHOICE_SLOTS;
    });
    Ok(config)
}

fn remembered_auto_choice(key: &AutoChoiceKey) -> Option<&'static KernelConfig> {
    AUTO_CHOICES.with_borrow(|memo| {
        memo.entries
            .iter()
            .flatten()
            .find(|(k, _)| k == key)
            .map(|&(_, config)| config)
    })
}

/// The kernel configuration a call with `params` runs on `device`: the caller's named one (an
/// error if it was not built for the device or does not fit its shared memory), else the tuned
/// table for this GPU, else the built-in rule, among the configurations the device can run.
/// Needs no GPU: `DeviceFacts::new` describes one by hand, so a plan can be checked anywhere.
pub fn choose_config(
    params: &AttentionParams,
    dtype: DType,
    device: &DeviceFacts,
) -> Result<&'static KernelConfig> {
    choose_config_for(params, dtype, device, params.softcap.is_some())
}

/// [`choose_config`] for a call that does (`score_mods`: softcap or ALiBi slopes) or does not
/// need a configuration's score-modifier kernel: with it, only configurations that have one
/// count; a named one without it is [`Error::FeatureNotCompiled`], a tuned pick without it
/// gives way to the built-in rule over those that have it.
pub fn choose_config_for(
    params: &AttentionParams,
    dtype: DType,
    device: &DeviceFacts,
    score_mods: bool,
) -> Result<&'static KernelConfig> {
    let feature = if params.softcap.is_some() {
        "softcap"
    } else {
        "ALiBi"
    };
    let modifier = crate::dispatch::RowModifier::of_call(params.softcap.is_some(), score_mods);
    let named = match &params.kernel {
        KernelChoice::Id(id) => Some(
            candidates(dtype, params.head_dim)
                .find(|c| c.id == *id)
                .ok_or_else(|| Error::UnknownConfig(format!("id {id}")))?,
        ),
        KernelChoice::Named(name) => Some(
            candidates(dtype, params.head_dim)
                .find(|c| c.name == name)
                .ok_or_else(|| Error::UnknownConfig(name.clone()))?,
        ),
        KernelChoice::Auto => None,
    };
    if let Some(config) = named {
        device.check(config)?;
        if score_mods && !config.score_mods {
            return Err(Error::FeatureNotCompiled {
                feature,
                config: config.name.to_string(),
            });
        }
        return Ok(config);
    }
    if let Some(config) = crate::dispatch::tuned(device, params, dtype, modifier)?
        .filter(|c| c.score_mods || !score_mods)
    {
        return Ok(config);
    }
    if let Some(config) = auto_config(params, dtype, device, score_mods) {
        return Ok(config);
    }
    if score_mods && auto_config(params, dtype, device, false).is_some() {
        return Err(Error::FeatureNotCompiled {
            feature,
            config: format!(
                "no {dtype} d{} configuration runnable here",
                params.head_dim
            ),
        });
    }
    Err(no_config_error(params, dtype, device))
}

/// Why no automatic choice exists: nothing compiled for this head dim, nothing built for this
/// device, or nothing small enough for its shared memory.
fn no_config_error(params: &AttentionParams, dtype: DType, device: &DeviceFacts) -> Error {
    let built_here =
        || candidates(dtype, params.head_dim).filter(|c| c.runs_on(device.compute_capability));
    match built_here().map(|c| c.smem_bytes).min() {
        None if candidates(dtype, params.head_dim).next().is_none() => Error::UnsupportedHeadDim {
            head_dim: params.head_dim,
            dtype,
            compiled: crate::compiled_head_dims(dtype),
        },
        None => device.not_built(None),
        Some(smallest) => Error::NoConfigFits {
            head_dim: params.head_dim,
            limit: device.smem_per_block,
            smallest,
        },
    }
}

/// The built-in rule: the largest query tile that still gives every SM work (about two CTAs
/// per SM), because a half-empty GPU costs more than the smaller tile's extra K/V reads; a tile
/// taller than 128 rows only where its last tile pads the rows by at most 1/16. Among
/// tiles of that height, the warp-specialized Hopper kernel first (1.2-1.5x the two-warpgroup
/// tile of the same shape on the lent H100 at S = 512-8192), the widest of its key tiles whose
/// last tile pads the keys by at most 1/16 (the 176- and 80-key tiles were 2-8% faster than the
/// 128- and 64-key ones on every long shape there), then 4-warp two-stage tiles, 128
/// keys wide up to head dim 64 and 64 above (FlashAttention-2's tile widths for these head
/// dims). When no plain tile fills the GPU, the split-KV tiles count each warp group's key walk
/// as a unit of parallel work and the one closest to two units per SM wins, taller tiles first
/// (less K/V traffic per query row). One-warp tiles are never chosen automatically.
pub(crate) fn auto_config(
    params: &AttentionParams,
    dtype: DType,
    device: &DeviceFacts,
    score_mods: bool,
) -> Option<&'static KernelConfig> {
    // No allocation: this runs on every launch. One-warp tiles only when nothing else exists.
    // With softcap or ALiBi only the tiles compiled with score modifiers count.
    let runnable = |c: &&KernelConfig| device.can_run(c) && (c.score_mods || !score_mods);
    let multi_warp = candidates(dtype, params.head_dim)
        .filter(runnable)
        .any(|c| c.warps > 1);
    let pool = || {
        candidates(dtype, params.head_dim)
            .filter(runnable)
            .filter(move |c| c.warps > 1 || !multi_warp)
    };
    // Saturating: choose_config takes unvalidated sizes, and a count past usize::MAX fills
    // the device all the same.
    let target = device.sm_count.saturating_mul(2);
    let ctas = |c: &KernelConfig| {
        params
            .seqlen_q
            .div_ceil(c.block_m)
            .saturating_mul(params.batch)
            .saturating_mul(params.heads_q)
    };
    // Independent key walks; a split only counts when each group gets a key tile of its own.
    let units = |c: &KernelConfig| ctas(c).saturating_mul(c.kv_splits);
    let key_tiles = |c: &KernelConfig| params.seqlen_k.div_ceil(c.block_n);
    // Head dim <= 64 leaves room for 128 keys of S per warp: FlashAttention-2's 128 x 128 tile,
    // and the tuner's pick for every long d64 shape on the H100. Larger head dims take 64 keys.
    let wide_keys = if params.head_dim <= 64 { 128 } else { 64 };
    // Last tie-break: the most arch-specific kernel that runs here (the sm_90a tiles on an H100),
    // which the tuner chose on every shape where one of the same size competed.
    let preference = |c: &KernelConfig| {
        (
            c.warps == 4,
            c.stages == 2,
            c.block_n == wide_keys,
            c.min_compute_capability,
        )
    };
    // Whether tiles of `tile` cover `len` with at most 1/16 of padding in the last one (the
    // padding found without rounding `len` up, which can overflow).
    let pads_little = |len: usize, tile: usize| (tile - len % tile) % tile * 16 <= len;
    // A wide key tile wastes the padding of the last one: on short sequences a narrower one wins.
    let ws_width = |c: &KernelConfig| {
        if c.warp_specialized() && pads_little(params.seqlen_k, c.block_n) {
            c.block_n
        } else {
            0
        }
    };
    // Likewise a query tile taller than 128 rows only where its last tile pads the rows by at
    // most 1/16: otherwise it counts as a 128-row tile and loses the tie to one. 192 rows cover
    // 512 or 1024 with 11% padding; on the lent H100 the 192-row head-dim-128 tile was 1-12%
    // slower than the 128-row one there and 2-5% faster at 4096 and 16384 rows
    // (docs/benchmarks/2026-11-28-h100-d128-three-consumers.md).
    let height = |c: &KernelConfig| {
        if c.block_m > 128 && !pads_little(params.seqlen_q, c.block_m) {
            128
        } else {
            c.block_m
        }
    };
    let plain = || pool().filter(|c| c.kv_splits == 1);
    if let Some(c) = plain().filter(|c| ctas(c) >= target).max_by_key(|c| {
        let shorter = std::cmp::Reverse(c.block_m);
        (
            height(c),
            c.warp_specialized(),
            ws_width(c),
            preference(c),
            shorter,
        )
    }) {
        return Some(c);
    }
    pool()
        .filter(|c| c.kv_splits <= key_tiles(c))
        .max_by_key(|c| {
            let two_stage = c.stages == 2;
            (
                units(c).min(target),
                c.block_m,
                c.kv_splits == 1,
                two_stage,
                preference(c),
            )
        })
}

fn status_to_result(
    status: sys::FlashAttnStatus,
    p: &sys::FlashAttnFwdParams,
    params: &AttentionParams,
    dtype: DType,
) -> Result<()> {
    use sys::FlashAttnStatus as S;
    match status {
        S::FLASHATTN_STATUS_SUCCESS => Ok(()),
        S::FLASHATTN_STATUS_CUDA_ERROR => Err(cuda_error(p.cuda_error)),
        S::FLASHATTN_STATUS_UNSUPPORTED_HEAD_DIM => Err(Error::UnsupportedHeadDim {
            head_dim: params.head_dim,
            dtype,
            compiled: crate::compiled_head_dims(dtype),
        }),
        S::FLASHATTN_STATUS_UNSUPPORTED_DTYPE => Err(Error::UnsupportedDtype(dtype)),
        S::FLASHATTN_STATUS_UNKNOWN_CONFIG => {
            Err(Error::UnknownConfig(format!("id {}", p.config_id)))
        }
        S::FLASHATTN_STATUS_UNSUPPORTED_FEATURE => Err(Error::FeatureNotCompiled {
            feature: if params.softcap.is_some() {
                "softcap"
            } else {
                "ALiBi"
            },
            config: format!("id {}", p.config_id),
        }),
        other => Err(dispatch_error(other)),
    }
}

/// The error for a `cudaError_t` the C side returned.
pub(crate) fn cuda_error(code: i32) -> Error {
    // SAFETY: both return static NUL-terminated strings for any code.
    let (name, message) = unsafe {
        (
            CStr::from_ptr(sys::flashattn_cuda_error_name(code))
                .to_string_lossy()
                .into_owned(),
            CStr::from_ptr(sys::flashattn_cuda_error_string(code))
                .to_string_lossy()
                .into_owned(),
        )
    };
    Error::Cuda {
        code,
        name,
        message,
    }
}

/// The C side refused what the Rust validation passed: a bug, reported with its status text.
pub(crate) fn dispatch_error(status: sys::FlashAttnStatus) -> Error {
    // SAFETY: returns a static string for any value.
    let text = unsafe { CStr::from_ptr(sys::flashattn_status_string(status)) };
    Error::Dispatch(text.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    /// The system allocator, counting each thread's allocations (tests run on many threads).
    struct CountingAllocator;

    thread_local! {
        static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    }

    // SAFETY: forwards to the system allocator; the count is a const-initialised thread local,
    // which never allocates (try_with: it may already be gone while a thread exits).
    unsafe impl GlobalAlloc for CountingAllocator {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static COUNTING: CountingAllocator = CountingAllocator;

    fn allocations() -> usize {
        ALLOCATIONS.with(Cell::get)
    }

    fn leaked_h100() -> &'static DeviceFacts {
        Box::leak(Box::new(DeviceFacts::new(
            "NVIDIA H100 80GB HBM3",
            132,
            90,
            227 * 1024,
        )))
    }

    /// Dense tensors of `p` at made-up, well separated, aligned addresses (never dereferenced).
    fn fake_tensors(p: &AttentionParams, dtype: DType) -> RawForward {
        let q_len = p.batch * p.seqlen_q * p.heads_q * p.head_dim;
        let kv_len = p.batch * p.seqlen_k * p.heads_kv * p.head_dim;
        let tensor = |slot: u64, len: usize, strides: Strides| RawTensor {
            ptr: slot << 32,
            len,
            dtype,
            strides,
        };
        let qs = Strides::bshd(p.seqlen_q, p.heads_q, p.head_dim);
        let kvs = Strides::bshd(p.seqlen_k, p.heads_kv, p.head_dim);
        let lse = RawLse {
            ptr: 5 << 32,
            len: p.batch * p.heads_q * p.seqlen_q,
        };
        RawForward::new(
            tensor(1, q_len, qs),
            tensor(2, kv_len, kvs),
            tensor(3, kv_len, kvs),
            tensor(4, q_len, qs),
            Some(lse),
        )
    }

    #[test]
    fn launch_preparation_allocates_nothing_once_the_choice_is_known() {
        let h100 = leaked_h100();
        for dtype in [DType::F16, DType::BF16] {
            for d in crate::compiled_head_dims(dtype) {
                for causal in [false, true] {
                    let p = AttentionParams {
                        causal,
                        ..AttentionParams::new(2, 512, 512, 8, d)
                    };
                    let t = fake_tensors(&p, dtype);
                    // The first call may read the tables and fill this thread's memo.
                    let (_, first) = prepare_launch(&p, &t, None, h100).unwrap();
                    let before = allocations();
                    let (c_params, config) = prepare_launch(&p, &t, None, h100).unwrap();
                    assert_eq!(allocations(), before, "{dtype} d{d} causal {causal}");
                    assert_eq!(config, first);
                    assert_eq!(c_params.config_id, config.id as i32);
                    assert_eq!(config, choose_config_for(&p, dtype, h100, false).unwrap());
                }
            }
        }
    }

    #[test]
    fn remembered_choices_match_fresh_ones_across_more_shapes_than_slots() {
        let h100 = leaked_h100();
        let capped_smem: &'static DeviceFacts = Box::leak(Box::new(DeviceFacts::new(
            "NVIDIA H100 80GB HBM3",
            132,
            90,
            99 * 1024,
        )));
        for round in 0..3 {
            for (i, seqlen) in [128, 512, 1000, 2048, 4096, 8192, 16384]
                .into_iter()
                .enumerate()
            {
                for (device, batch) in [(h100, 1 + i), (capped_smem, 4)] {
                    for dtype in [DType::F16, DType::BF16] {
                        for d in crate::compiled_head_dims(dtype) {
                            let p = AttentionParams::new(batch, seqlen, seqlen, 16, d);
                            let fresh = choose_config_for(&p, dtype, device, false);
                            let launched = launch_config(&p, dtype, device, false);
                            assert_eq!(
                                launched.ok(),
                                fresh.ok(),
                                "round {round}: {dtype} d{d} s{seqlen} b{batch}"
                            );
                        }
                    }
                }
            }
        }
        // Named choices are looked up every time, errors included.
        let p = AttentionParams {
            kernel: KernelChoice::Named("no_such_config".into()),
            ..AttentionParams::new(1, 512, 512, 8, 64)
        };
        for _ in 0..2 {
            let err = launch_config(&p, DType::F16, h100, false).unwrap_err();
            assert!(matches!(err, Error::UnknownConfig(_)), "{err}");
        }
    }

    #[test]
    fn auto_config_fills_the_gpu_and_skips_one_warp_tiles() {
        let h100 = DeviceFacts::new("H100", 132, 90, 227 * 1024);
        for dtype in [DType::F16, DType::BF16] {
            for d in crate::compiled_head_dims(dtype) {
                let tallest = candidates(dtype, d).map(|c| c.block_m).max().unwrap();
                // A large problem: the tallest tile already gives every SM two CTAs.
                let big = AttentionParams::new(8, 8192, 8192, 16, d);
                let c = auto_config(&big, dtype, &h100, false).unwrap();
                assert_eq!(c.block_m, tallest, "{dtype} d{d}: {}", c.name);
                assert!(c.warps > 1);
                // Where this build has a warp-specialized tile of that height (90a built), it
                // takes the large problem, with or without score modifiers; an sm_80 device never
                // gets it.
                let ws_here = candidates(dtype, d)
                    .any(|c| c.warp_specialized() && c.block_m == tallest && h100.can_run(c));
                assert_eq!(c.warp_specialized(), ws_here, "{dtype} d{d}: {}", c.name);
                if ws_here {
                    let mods = auto_config(&big, dtype, &h100, true).unwrap();
                    assert!(mods.warp_specialized() && mods.score_mods, "{}", mods.name);
                    // (A build for sm_90a alone, FLASHATTN_CUDA_ARCHS=90a, has nothing for it.)
                    let a100 = DeviceFacts::new("A100", 108, 80, 163 * 1024);
                    if let Some(c) = auto_config(&big, dtype, &a100, false) {
                        assert!(!c.warp_specialized(), "{dtype} d{d} on sm_80: {}", c.name);
                    }
                }
                // A tiny problem: at least the parallelism of the plain tile with the most CTAs,
                // counting split-KV groups, and still never one warp.
                let small = AttentionParams::new(1, 512, 512, 8, d);
                let c = auto_config(&small, dtype, &h100, false).unwrap();
                let units = |c: &KernelConfig| {
                    512usize.div_ceil(c.block_m) * 8 * c.kv_splits.min(512usize.div_ceil(c.block_n))
                };
                let most_plain = candidates(dtype, d)
                    .filter(|c| c.warps > 1 && c.kv_splits == 1)
                    .map(units)
                    .max()
                    .unwrap();
                assert!(units(c) >= most_plain.min(264), "{dtype} d{d}: {}", c.name);
                assert!(c.warps > 1);
                if candidates(dtype, d).any(|c| c.kv_splits > 1) {
                    assert!(c.kv_splits > 1, "{dtype} d{d}: {}", c.name);
                }
                // Nothing runs below the configurations' minimum compute capability.
                let turing = DeviceFacts::new("sm_75", 40, 75, 64 * 1024);
                assert!(auto_config(&small, dtype, &turing, false).is_none());
            }
        }
    }

    #[test]
    fn auto_config_takes_a_tile_taller_than_128_rows_only_where_it_pads_little() {
        let h100 = DeviceFacts::new("H100", 132, 90, 227 * 1024);
        for dtype in [DType::F16, DType::BF16] {
            for d in crate::compiled_head_dims(dtype) {
                let runs = |c: &&KernelConfig| h100.can_run(c) && c.kv_splits == 1;
                if !candidates(dtype, d).filter(runs).any(|c| c.block_m == 192) {
                    continue; // no three-consumer tile at this head dim in this build
                }
                // 2048 rows: 11 tiles of 192, 64 rows of padding (1/32).
                let fits = AttentionParams::new(8, 2048, 2048, 16, d);
                let c = auto_config(&fits, dtype, &h100, false).unwrap();
                assert_eq!(c.block_m, 192, "{dtype} d{d}: {}", c.name);
                // 1024 and 512 rows: 128 rows of padding (1/8, 1/4): a 128-row tile instead.
                for (batch, rows) in [(16, 1024), (32, 512)] {
                    let pads = AttentionParams::new(batch, rows, rows, 16, d);
                    let c = auto_config(&pads, dtype, &h100, false).unwrap();
                    assert_eq!(c.block_m, 128, "{dtype} d{d} S{rows}: {}", c.name);
                    assert!(c.warp_specialized(), "{dtype} d{d} S{rows}: {}", c.name);
                }
            }
        }
    }

    #[test]
    fn auto_config_takes_the_widest_ws_key_tile_that_pads_little() {
        let h100 = DeviceFacts::new("H100", 132, 90, 227 * 1024);
        for dtype in [DType::F16, DType::BF16] {
            for d in crate::compiled_head_dims(dtype) {
                let ws =
                    || candidates(dtype, d).filter(|c| c.warp_specialized() && h100.can_run(c));
                let Some(tallest) = ws().map(|c| c.block_m).max() else {
                    continue; // no sm_90a tiles in this build
                };
                let widest = ws()
                    .filter(|c| c.block_m == tallest)
                    .map(|c| c.block_n)
                    .max()
                    .unwrap();
                // Long keys: the widest ws tile of the tallest height (its last tile pads less
                // than 1/16).
                let long = AttentionParams::new(2, 8192, 8192, 16, d);
                assert_eq!(
                    auto_config(&long, dtype, &h100, false).unwrap().block_n,
                    widest,
                    "{dtype} d{d}"
                );
                // 256 keys on many heads: a tile that divides them, where one does.
                let short = AttentionParams::new(64, 256, 256, 32, d);
                let c = auto_config(&short, dtype, &h100, false).unwrap();
                if ws().any(|c| 256 % c.block_n == 0) {
                    assert_eq!(256 % c.block_n, 0, "{dtype} d{d}: {}", c.name);
                }
            }
        }
    }

    /// choose_config takes sizes no call validated: counts past usize::MAX saturate in the
    /// built-in rule and the tuned-table distance instead of overflowing.
    #[test]
    fn choosing_for_sizes_past_usize_does_not_overflow() {
        let h100 = DeviceFacts::new("NVIDIA H100 80GB HBM3", 132, 90, 227 * 1024);
        let most = DeviceFacts::new("NVIDIA H100 80GB HBM3", usize::MAX, 90, 227 * 1024);
        for dtype in [DType::F16, DType::BF16] {
            for d in crate::compiled_head_dims(dtype) {
                for (batch, seqlen, heads) in [
                    (usize::MAX, usize::MAX, usize::MAX),
                    (1 << 40, usize::MAX - 3, 1 << 40),
                    (0, 0, 0),
                ] {
                    let p = AttentionParams::new(batch, seqlen, seqlen, heads, d);
                    for device in [&h100, &most] {
                        for mods in [false, true] {
                            let _ = choose_config_for(&p, dtype, device, mods);
                            let _ = auto_config(&p, dtype, device, mods);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn schedules_read_back_from_the_c_side() {
        use sys::FlashAttnSchedule as S;
        let known = [
            (S::FLASHATTN_SCHEDULE_TILE_PER_CTA, Schedule::TilePerCta),
            (S::FLASHATTN_SCHEDULE_WALK, Schedule::Walk),
            (S::FLASHATTN_SCHEDULE_CAUSAL_FOLDS, Schedule::CausalFolds),
            (S::FLASHATTN_SCHEDULE_SPLIT_TAIL, Schedule::SplitTail),
        ];
        let mut names = std::collections::HashSet::new();
        for (c, rust) in known {
            assert_eq!(Schedule::from_sys(c.0 as i32), Some(rust));
            assert!(names.insert(rust.name()), "{rust}");
        }
        for unknown in [-1, 4, i32::MAX] {
            assert_eq!(Schedule::from_sys(unknown), None);
        }
    }

    #[test]
    fn feeds_read_back_from_the_c_side() {
        use sys::FlashAttnFeed as F;
        assert_eq!(
            Feed::from_sys(F::FLASHATTN_FEED_CP_ASYNC.0 as i32),
            Some(Feed::CpAsync)
        );
        assert_eq!(
            Feed::from_sys(F::FLASHATTN_FEED_TMA.0 as i32),
            Some(Feed::Tma)
        );
        assert_ne!(Feed::CpAsync.name(), Feed::Tma.name());
        for unknown in [-1, 2, i32::MAX] {
            assert_eq!(Feed::from_sys(unknown), None);
        }
    }
}
