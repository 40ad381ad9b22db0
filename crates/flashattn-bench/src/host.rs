//! Host cost of a launch: the wall-clock CPU time one forward call takes to enqueue, along the
//! launch paths a caller can take, from the safe API with cudarc's per-buffer event tracking
//! down to the bare FFI call. `flashattn-bench host` writes it as JSON and a Markdown table.
//!
//! Protocol: after `warmup` calls and a synchronize, each sample times a burst of `calls` calls
//! enqueued back to back without synchronizing (one `Instant` pair around the burst), then
//! synchronizes; the sample is the burst's time / `calls`. The paths take their samples in turn
//! (one burst of each, then the next round), so a drift of the host over the run reaches every
//! path alike. Only the enqueue is timed, so the kernel's own duration does not enter, as long
//! as the launch queue never fills: the GPU starts each burst idle and falls behind by at most
//! `calls` launches when it is slower than the host, and while that stays below the queue's
//! depth (about a thousand launches; cudarc's event records and waits take entries too) no
//! enqueue blocks. The GPU time per call of the
//! same bursts is reported beside the host time: a host time that has grown to it means the
//! queue filled and the host waited for the GPU; time a shorter shape or fewer `calls` then.

use std::cell::Cell;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use flashattn::{
    AttentionParams, DType, Element, KernelChoice, RawForward, RawLse, RawTensor, Strides, Tensor,
    TensorMut,
};
use half::{bf16, f16};
use serde::{Deserialize, Serialize};

use crate::gpu::{dtype_of, params_of};
use crate::output::{Align, fmt_num, markdown_table};
use crate::report::{Device, SCHEMA_VERSION, Shape, TOOL_RUST, now_utc};
use crate::stats::Summary;

/// `flashattn::forward` on buffers made while the context's event tracking was on, with a
/// second stream in the context: cudarc waits for and records per-buffer events every call.
pub const PATH_TRACKING_ON: &str = "forward tracking-on";
/// `flashattn::forward` on buffers made with event tracking off (the caller orders streams).
pub const PATH_TRACKING_OFF: &str = "forward tracking-off";
/// `flashattn::forward_raw`: raw addresses, the same validation and kernel choice.
pub const PATH_RAW: &str = "forward_raw";
/// `flashattn_sys::flashattn_fwd` with a filled parameter struct: no validation, no choice, no
/// context binding; the floor of what a launch through the C side costs.
pub const PATH_BARE_FFI: &str = "bare ffi";

/// Every path, in the order they are timed and shown.
pub const HOST_PATHS: [&str; 4] = [PATH_TRACKING_ON, PATH_TRACKING_OFF, PATH_RAW, PATH_BARE_FFI];

/// How to time the host cost.
#[derive(Clone, Debug)]
pub struct HostProtocol {
    /// Calls enqueued per timed burst.
    pub calls: usize,
    /// Timed bursts per (shape, path).
    pub samples: usize,
    /// Untimed calls before the first burst.
    pub warmup: usize,
}

impl Default for HostProtocol {
    fn default() -> Self {
        HostProtocol {
            calls: 200,
            samples: 50,
            warmup: 50,
        }
    }
}

/// The host cost of one launch path on one shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostCost {
    pub shape: Shape,
    /// One of [`HOST_PATHS`].
    pub path: String,
    /// Calls per timed burst.
    pub calls: usize,
    /// Host microseconds per call, one sample per burst.
    #[serde(default)]
    pub samples_us: Vec<f64>,
    /// Summary of `samples_us` (microseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    /// Median over the bursts of the GPU's microseconds per call (events around each burst).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_us_per_call: Option<f64>,
    /// The configuration the calls ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// Why the path was not timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl HostCost {
    fn measured(shape: &Shape, path: &str, calls: usize, bursts: Bursts, config: &str) -> Self {
        HostCost {
            shape: shape.clone(),
            path: path.to_string(),
            calls,
            summary: Summary::try_from_samples(&bursts.host_us),
            gpu_us_per_call: Summary::try_from_samples(&bursts.gpu_us).map(|s| s.p50),
            samples_us: bursts.host_us,
            config: Some(config.to_string()),
            error: None,
        }
    }

    /// A path's bursts, or why they were not timed.
    fn of<E: std::fmt::Display>(
        shape: &Shape,
        path: &str,
        calls: usize,
        bursts: Result<Bursts, E>,
        config: &str,
    ) -> Self {
        match bursts {
            Ok(b) => Self::measured(shape, path, calls, b, config),
            Err(e) => Self::failed(shape, path, calls, e.to_string()),
        }
    }

    fn failed(shape: &Shape, path: &str, calls: usize, error: String) -> Self {
        HostCost {
            shape: shape.clone(),
            path: path.to_string(),
            calls,
            samples_us: Vec::new(),
            summary: None,
            gpu_us_per_call: None,
            config: None,
            error: Some(error),
        }
    }
}

/// A `flashattn-bench host` run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostReport {
    pub schema_version: u32,
    pub tool: String,
    pub created_utc: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    pub device: Device,
    pub results: Vec<HostCost>,
}

impl HostReport {
    pub fn new(device: Device) -> Self {
        HostReport {
            schema_version: SCHEMA_VERSION,
            tool: TOOL_RUST.to_string(),
            created_utc: now_utc(),
            commit: None,
            command: None,
            device,
            results: Vec::new(),
        }
    }

    /// The table's header and one row per result: shape, path, host p50 and p90, GPU time.
    pub fn table(&self) -> (Vec<String>, Vec<Vec<String>>, Vec<Align>) {
        let headers = "shape|path|host p50 us|host p90 us|GPU us/call|config";
        let headers = headers.split('|').map(str::to_string).collect();
        let align = vec![
            Align::Left,
            Align::Left,
            Align::Right,
            Align::Right,
            Align::Right,
            Align::Left,
        ];
        let rows = self
            .results
            .iter()
            .map(|r| {
                let stat = |f: fn(&Summary) -> f64| r.summary.as_ref().map_or(f64::NAN, f);
                vec![
                    r.shape.key(),
                    r.path.clone(),
                    fmt_num(stat(|s| s.p50)),
                    fmt_num(stat(|s| s.p90)),
                    fmt_num(r.gpu_us_per_call.unwrap_or(f64::NAN)),
                    match (&r.config, &r.error) {
                        (_, Some(e)) => format!("error: {e}"),
                        (Some(c), None) => c.clone(),
                        (None, None) => "-".to_string(),
                    },
                ]
            })
            .collect();
        (headers, rows, align)
    }

    /// The Markdown page: device, protocol, the table.
    pub fn to_markdown(&self) -> String {
        let (headers, rows, align) = self.table();
        let calls = self.results.first().map_or(0, |r| r.calls);
        format!(
            "# Host cost per forward call\n\n{} ({}), {}. Wall-clock CPU time per call of \
             bursts of {calls} calls enqueued without synchronizing, the paths' bursts taken in \
             turn; GPU us/call is the same bursts timed by events (host time close to it: the \
             launch queue filled).\n\n{}",
            self.device.name,
            self.device.compute_capability.as_deref().unwrap_or("?"),
            self.created_utc,
            markdown_table(&headers, &rows, &align)
        )
    }
}

/// Host and GPU microseconds per call, one entry per timed burst.
struct Bursts {
    host_us: Vec<f64>,
    gpu_us: Vec<f64>,
}

/// One launch path under timing: the stream it enqueues on and one call of it.
struct TimedPath<'a> {
    stream: &'a Arc<CudaStream>,
    launch: Box<dyn FnMut() -> Result<(), flashattn::Error> + 'a>,
}

impl TimedPath<'_> {
    fn warm_up(&mut self, calls: usize) -> Result<(), flashattn::Error> {
        for _ in 0..calls {
            (self.launch)()?;
        }
        Ok(self.stream.synchronize()?)
    }

    /// One burst of `calls` calls from an idle GPU: host and GPU microseconds per call.
    fn burst(&mut self, calls: usize) -> Result<(f64, f64), flashattn::Error> {
        let event = || {
            self.stream
                .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        };
        let gpu_start = event()?;
        let start = Instant::now();
        for _ in 0..calls {
            (self.launch)()?;
        }
        let host = start.elapsed();
        let gpu_end = event()?;
        self.stream.synchronize()?;
        let per_call = |total_us: f64| total_us / calls as f64;
        Ok((
            per_call(host.as_secs_f64() * 1e6),
            per_call(f64::from(gpu_start.elapsed_ms(&gpu_end)?) * 1e3),
        ))
    }
}

/// Time `paths` in bursts (see the module docs), interleaved: every path's sample i before any
/// path's sample i + 1. The lent hosts' launch cost drifts by a microsecond over minutes (other
/// tenants, clocks), as much as the differences between the paths; taken in turn, the paths see
/// the same drift and their differences stand. A path that fails stops there and reports why.
fn time_interleaved(
    proto: &HostProtocol,
    paths: &mut [TimedPath<'_>],
) -> Vec<Result<Bursts, flashattn::Error>> {
    let mut results: Vec<Result<Bursts, flashattn::Error>> = paths
        .iter_mut()
        .map(|path| {
            path.warm_up(proto.warmup).map(|()| Bursts {
                host_us: Vec::with_capacity(proto.samples),
                gpu_us: Vec::with_capacity(proto.samples),
            })
        })
        .collect();
    for _ in 0..proto.samples {
        for (path, result) in paths.iter_mut().zip(results.iter_mut()) {
            if let Ok(bursts) = result {
                match path.burst(proto.calls) {
                    Ok((host, gpu)) => {
                        bursts.host_us.push(host);
                        bursts.gpu_us.push(gpu);
                    }
                    Err(e) => *result = Err(e),
                }
            }
        }
    }
    results
}

/// One shape's buffers on one stream.
struct Buffers<T> {
    q: CudaSlice<T>,
    k: CudaSlice<T>,
    v: CudaSlice<T>,
    o: CudaSlice<T>,
    lse: CudaSlice<f32>,
}

impl<T: Element + cudarc::driver::ValidAsZeroBits> Buffers<T> {
    fn alloc(stream: &Arc<CudaStream>, shape: &Shape) -> Result<Self, flashattn::Error> {
        let q_len = shape.batch * shape.seqlen_q * shape.heads_q * shape.head_dim;
        let kv_len = shape.batch * shape.seqlen_k * shape.heads_kv * shape.head_dim;
        Ok(Buffers {
            q: stream.alloc_zeros(q_len)?,
            k: stream.alloc_zeros(kv_len)?,
            v: stream.alloc_zeros(kv_len)?,
            o: stream.alloc_zeros(q_len)?,
            lse: stream.alloc_zeros(shape.batch * shape.heads_q * shape.seqlen_q)?,
        })
    }

    /// One call of the safe API on these buffers.
    fn forward(
        &mut self,
        stream: &Arc<CudaStream>,
        params: &AttentionParams,
        qs: Strides,
        kvs: Strides,
    ) -> Result<&'static str, flashattn::Error> {
        let info = flashattn::forward(
            stream,
            params,
            Tensor::new(&self.q, qs),
            Tensor::new(&self.k, kvs),
            Tensor::new(&self.v, kvs),
            TensorMut::new(&mut self.o, qs),
            Some(&mut self.lse),
        )?;
        Ok(info.config.name)
    }

    /// The buffers as raw addresses; only for a context without event tracking, where cudarc's
    /// guards are no-ops and nothing is lost by dropping them at once.
    fn raw(&self, stream: &CudaStream, qs: Strides, kvs: Strides) -> RawForward {
        let tensor = |s: &CudaSlice<T>, strides| RawTensor {
            ptr: s.device_ptr(stream).0,
            len: s.len(),
            dtype: T::DTYPE,
            strides,
        };
        let lse = RawLse {
            ptr: self.lse.device_ptr(stream).0,
            len: self.lse.len(),
        };
        RawForward::new(
            tensor(&self.q, qs),
            tensor(&self.k, kvs),
            tensor(&self.v, kvs),
            tensor(&self.o, qs),
            Some(lse),
        )
    }
}

/// Time every path of [`HOST_PATHS`] on `shape`, on device `ordinal`.
pub fn host_costs(ordinal: usize, shape: &Shape, proto: &HostProtocol) -> Vec<HostCost> {
    let unsupported = if shape.decode || !shape.varlen.is_empty() {
        Some("host mode times the dense forward path only")
    } else if shape.mods.alibi || shape.mods.sinks {
        Some("host mode passes no ALiBi slopes or sinks")
    } else {
        None
    };
    let result = match (unsupported, dtype_of(shape)) {
        (Some(why), _) => Err(why.to_string()),
        (None, DType::F16) => host_costs_of::<f16>(ordinal, shape, proto),
        (None, DType::BF16) => host_costs_of::<bf16>(ordinal, shape, proto),
    };
    result.unwrap_or_else(|e| {
        HOST_PATHS
            .iter()
            .map(|path| HostCost::failed(shape, path, proto.calls, e.clone()))
            .collect()
    })
}

fn host_costs_of<T: Element + cudarc::driver::ValidAsZeroBits>(
    ordinal: usize,
    shape: &Shape,
    proto: &HostProtocol,
) -> Result<Vec<HostCost>, String> {
    use flashattn_sys as sys;
    let params = params_of(shape, KernelChoice::Auto);
    let qs = Strides::bshd(shape.seqlen_q, shape.heads_q, shape.head_dim);
    let kvs = Strides::bshd(shape.seqlen_k, shape.heads_kv, shape.head_dim);
    let text = |e: flashattn::Error| e.to_string();

    // Two cudarc contexts on the device's one primary context: each has its own tracking flag
    // and stream count. A second stream is what makes cudarc order buffers between streams
    // (with one stream it skips its events even when tracking is on), so each gets its own.
    let tracked = flashattn::open_device(ordinal).map_err(text)?;
    if !tracked.is_event_tracking() {
        return Err("a new cudarc context came without event tracking".into());
    }
    let tracked_stream = tracked.new_stream().map_err(|e| text(e.into()))?;
    let mut tracked_buffers = Buffers::<T>::alloc(&tracked_stream, shape).map_err(text)?;

    let untracked = flashattn::open_device(ordinal).map_err(text)?;
    // SAFETY: the buffers below are allocated, used and freed on `stream` alone, which orders
    // all of it; the tracked context's buffers are its own.
    unsafe { untracked.disable_event_tracking() };
    let stream = untracked.new_stream().map_err(|e| text(e.into()))?;
    let mut buffers = Buffers::<T>::alloc(&stream, shape).map_err(text)?;
    let raw = buffers.raw(&stream, qs, kvs);
    // The bare C call: the parameter struct forward_raw fills, filled once.
    let (filled, bare_config) = flashattn::prepare_forward(&stream, &params, &raw).map_err(text)?;
    let cu_stream = stream.cu_stream() as *mut std::ffi::c_void;

    // The configuration the safe and raw paths' calls ran, as they report it (the bare call's
    // is the one prepare_forward chose).
    let (on_config, off_config, raw_config) = (Cell::new(""), Cell::new(""), Cell::new(""));
    let mut paths = [
        TimedPath {
            stream: &tracked_stream,
            launch: Box::new(|| {
                on_config.set(tracked_buffers.forward(&tracked_stream, &params, qs, kvs)?);
                Ok(())
            }),
        },
        TimedPath {
            stream: &stream,
            launch: Box::new(|| {
                off_config.set(buffers.forward(&stream, &params, qs, kvs)?);
                Ok(())
            }),
        },
        TimedPath {
            stream: &stream,
            launch: Box::new(|| {
                // SAFETY: `raw` holds live buffers of `stream`'s context, used on `stream` only.
                raw_config.set(
                    unsafe { flashattn::forward_raw(&stream, &params, &raw) }?
                        .config
                        .name,
                );
                Ok(())
            }),
        },
        TimedPath {
            stream: &stream,
            launch: Box::new(|| {
                // No binding per call: the runtime launches into the thread's current context,
                // the device's primary one, bound once before the timing starts.
                let mut p = filled;
                // SAFETY: the same validated call forward_raw makes, on live buffers of `stream`.
                let status = unsafe { sys::flashattn_fwd(&mut p, cu_stream) };
                if status == sys::FlashAttnStatus::FLASHATTN_STATUS_SUCCESS {
                    Ok(())
                } else {
                    Err(flashattn::Error::Dispatch(format!(
                        "flashattn_fwd: {status:?}, cuda error {}",
                        p.cuda_error
                    )))
                }
            }),
        },
    ];
    stream
        .context()
        .bind_to_thread()
        .map_err(|e| text(e.into()))?;
    let timed = time_interleaved(proto, &mut paths);
    drop(paths);
    tracked_stream.synchronize().map_err(|e| text(e.into()))?;
    stream.synchronize().map_err(|e| text(e.into()))?;
    Ok(HOST_PATHS
        .iter()
        .zip(timed)
        .zip([
            on_config.get(),
            off_config.get(),
            raw_config.get(),
            bare_config.name,
        ])
        .map(|((path, bursts), config)| HostCost::of(shape, path, proto.calls, bursts, config))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_round_trips_and_renders_one_row_per_result() {
        let shape = Shape::self_attention("f16", 1, 8, 512, 64, false);
        let bursts = Bursts {
            host_us: vec![2.5, 2.0, 3.0],
            gpu_us: vec![9.0, 9.5, 10.0],
        };
        let mut report = HostReport::new(Device::named("GPU X"));
        report.results.push(HostCost::measured(
            &shape,
            PATH_TRACKING_OFF,
            200,
            bursts,
            "sm80_f16_d64_m64n128w4s2",
        ));
        report.results.push(HostCost::failed(
            &shape,
            PATH_BARE_FFI,
            200,
            "no device".into(),
        ));
        let json = serde_json::to_string(&report).unwrap();
        assert_eq!(serde_json::from_str::<HostReport>(&json).unwrap(), report);
        let measured = &report.results[0];
        assert_eq!(measured.summary.unwrap().p50, 2.5);
        assert_eq!(measured.gpu_us_per_call, Some(9.5));
        let md = report.to_markdown();
        assert!(md.contains("| f16 B1 H8/8 S512x512 D64"), "{md}");
        assert!(md.contains("2.50"), "{md}");
        assert!(md.contains("error: no device"), "{md}");
        assert_eq!(md.lines().filter(|l| l.starts_with('|')).count(), 2 + 2);
    }
}
