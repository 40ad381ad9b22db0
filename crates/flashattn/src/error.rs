//! The one error type of the crate: every way a call can be refused or fail, typed.

use crate::DType;

/// Why a forward call was refused before launch, or how the launch failed.
///
/// Validation errors ([`Error::is_validation`]) are decided on the host before anything
/// touches the GPU, so a refused call has launched nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A size is zero (batch, a sequence length, a head count or the head dim).
    #[error("{what} must be at least 1")]
    ZeroSize {
        /// Which size.
        what: &'static str,
    },
    /// GQA/MQA needs every KV head to serve the same number of query heads.
    #[error("heads_q ({heads_q}) is not a multiple of heads_kv ({heads_kv})")]
    HeadsNotDivisible {
        /// Query heads.
        heads_q: usize,
        /// Key/value heads.
        heads_kv: usize,
    },
    /// No kernel was compiled for this head dim.
    #[error("head dim {head_dim} is not supported; compiled head dims for {dtype}: {compiled:?}")]
    UnsupportedHeadDim {
        /// The requested head dim.
        head_dim: usize,
        /// The element type of the call.
        dtype: DType,
        /// Head dims this build has kernels for (see FLASHATTN_HEAD_DIMS).
        compiled: Vec<usize>,
    },
    /// No kernel was compiled for this element type (see FLASHATTN_DTYPES).
    #[error("no kernel compiled for dtype {0}")]
    UnsupportedDtype(DType),
    /// Tensors of one call disagree on element type.
    #[error("{tensor} has dtype {found}, expected {expected} (the dtype of q)")]
    DtypeMismatch {
        /// Which tensor.
        tensor: &'static str,
        /// The dtype of q.
        expected: DType,
        /// The tensor's dtype.
        found: DType,
    },
    /// A slice holds fewer elements than its shape and strides address.
    #[error("{tensor} has {len} elements but its shape and strides address {required}")]
    SliceTooShort {
        /// Which tensor.
        tensor: &'static str,
        /// Elements in the slice.
        len: usize,
        /// Elements needed.
        required: usize,
    },
    /// An output shares memory with an input or with the other output.
    #[error("{output} overlaps {other} in device memory")]
    Aliasing {
        /// The output tensor (o or lse).
        output: &'static str,
        /// The tensor it overlaps.
        other: &'static str,
    },
    /// A buffer belongs to another CUDA context than the stream the call launches on: its
    /// address means nothing to the kernel there (memory of another device, or of a context
    /// created apart from the device's primary one). Checked for every buffer of the safe entry
    /// points; the `_raw` ones take addresses, which carry no context.
    #[error("{tensor} was allocated in another CUDA context than the launch stream's")]
    ContextMismatch {
        /// Which buffer.
        tensor: &'static str,
    },
    /// The output's strides map two elements to the same address.
    #[error("o's strides make distinct elements overlap ({detail})")]
    SelfOverlappingOutput {
        /// Which dimensions collide.
        detail: String,
    },
    /// A pointer or stride breaks the 16-byte alignment the kernels' vector copies need.
    #[error("{tensor}: {detail}")]
    Misaligned {
        /// Which tensor.
        tensor: &'static str,
        /// What is misaligned.
        detail: String,
    },
    /// A size or offset would overflow the kernel's index arithmetic or a grid dimension.
    #[error("{what} is {value}, above the limit of {max}")]
    TooLarge {
        /// Which quantity.
        what: &'static str,
        /// Its value.
        value: u128,
        /// The largest value the kernels handle.
        max: u128,
    },
    /// The softmax scale must be finite and positive.
    #[error("softmax scale {0} must be finite and > 0")]
    InvalidScale(f32),
    /// A paged KV cache's page size must be a positive multiple of 16.
    #[error("page size {0} is not a positive multiple of 16")]
    InvalidPageSize(usize),
    /// A block table row has fewer entries than the longest sequence has pages.
    #[error("the block table has {width} entries a row, but seqlen_k needs {needed} pages")]
    BlockTableTooNarrow {
        /// Entries per row.
        width: usize,
        /// Pages the longest sequence spans.
        needed: usize,
    },
    /// A block table entry names no page of the cache ([`crate::check_block_table`]).
    #[error(
        "block table entry {slot} of sequence {sequence} is {page}, not a page in 0..{num_pages}"
    )]
    BlockTableEntry {
        /// The sequence (row of the table).
        sequence: usize,
        /// The entry within the row.
        slot: usize,
        /// Its value (i64::MIN: beyond the table's end).
        page: i64,
        /// Pages in the cache.
        num_pages: usize,
    },
    /// A variable-length call's int32 sequence vector has the wrong number of entries:
    /// `cu_seqlens_q` and `cu_seqlens_k` need `batch + 1`, `seqused_k` needs `batch`.
    #[error("{input} has {len} entries; a batch of {batch} sequences needs {expected}")]
    SeqlensLength {
        /// `cu_seqlens_q`, `cu_seqlens_k` or `seqused_k`.
        input: &'static str,
        /// Entries in the slice.
        len: usize,
        /// Sequences of the call.
        batch: usize,
        /// Entries needed.
        expected: usize,
    },
    /// The contents of a variable-length call's sequence vectors break the contract (found by
    /// [`crate::check_varlen_seqlens`] on a host copy; the launch never reads them): prefix sums
    /// that do not start at 0, decrease, or do not end at the total the call states, a sequence
    /// longer than `max_seqlen`, or a `seqused_k` entry outside `0..=` its key count.
    #[error("{input}, sequence {sequence}: {detail}")]
    SeqlensContents {
        /// `cu_seqlens_q`, `cu_seqlens_k` or `seqused_k`.
        input: &'static str,
        /// The first sequence where the contract breaks.
        sequence: usize,
        /// What is wrong there.
        detail: String,
    },
    /// A named kernel configuration does not exist, or is for another dtype or head dim.
    #[error("kernel configuration {0} does not exist for this dtype and head dim")]
    UnknownConfig(String),
    /// The kernels this call needs were not compiled for the device's compute capability.
    #[error(
        "{} not built for compute capability {}.{} (this binary carries SASS for {built_archs:?} \
         and PTX of the newest); rebuild with FLASHATTN_CUDA_ARCHS (or CUDA_COMPUTE_CAP) listing {}",
        config.as_ref().map_or("the kernels for this dtype and head dim are".to_string(), |c| format!("kernel configuration {c} is")),
        compute_capability / 10, compute_capability % 10, compute_capability
    )]
    NotBuiltForDevice {
        /// The configuration the caller named, if any.
        config: Option<String>,
        /// The device's compute capability, major * 10 + minor.
        compute_capability: u32,
        /// The SM targets this binary was compiled for, `;`-separated.
        built_archs: String,
    },
    /// A named configuration needs more shared memory per block than the device (or the
    /// `FLASHATTN_MAX_SMEM_PER_BLOCK` cap) allows.
    #[error(
        "kernel configuration {config} needs {required} bytes of shared memory per block; {} allows {limit}",
        if *capped { "FLASHATTN_MAX_SMEM_PER_BLOCK" } else { "this device" }
    )]
    SharedMemoryExceeded {
        /// The configuration.
        config: String,
        /// Its shared memory per block.
        required: usize,
        /// What this device allows (after the cap).
        limit: usize,
        /// Whether the limit is the environment's cap rather than the device's own.
        capped: bool,
    },
    /// No compiled configuration for this dtype and head dim fits the shared memory available.
    #[error(
        "no compiled kernel configuration for head dim {head_dim} fits in {limit} bytes of shared \
         memory per block (the smallest needs {smallest})"
    )]
    NoConfigFits {
        /// The head dim of the call.
        head_dim: usize,
        /// Shared memory per block available.
        limit: usize,
        /// The smallest requirement among the compiled configurations.
        smallest: usize,
    },
    /// The softcap must be finite and positive (`None` turns it off).
    #[error("softcap {0} must be finite and > 0 (None turns the softcap off)")]
    InvalidSoftcap(f32),
    /// A per-head f32 vector (ALiBi slopes, sinks) is shorter than `heads_q` or misaligned.
    #[error("{vector}: {detail}")]
    InvalidHeadVector {
        /// Which vector: `alibi_slopes` or `sinks`.
        vector: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// softcap or ALiBi was asked of a kernel configuration compiled without its
    /// score-modifier kernel ([`crate::KernelConfig::score_mods`]), or of a dtype and head dim
    /// that has none.
    #[error("{feature} needs a configuration with score modifiers; {config} has none")]
    FeatureNotCompiled {
        /// `softcap` or `ALiBi`.
        feature: &'static str,
        /// The configuration, or the dtype and head dim.
        config: String,
    },
    /// An environment variable the library reads holds a value it cannot use.
    #[error("{variable}: {detail}")]
    Environment {
        /// The variable.
        variable: &'static str,
        /// What is wrong with its value.
        detail: String,
    },
    /// No NVIDIA driver (libcuda) could be loaded.
    #[error("no CUDA driver: libcuda could not be loaded (is the NVIDIA driver installed?)")]
    NoDriver,
    /// The driver loaded but reports no device with this ordinal.
    #[error("no CUDA device with ordinal {ordinal} ({count} found)")]
    NoDevice {
        /// The requested ordinal.
        ordinal: usize,
        /// Devices present.
        count: usize,
    },
    /// The device is older than the kernels support (sm_80).
    #[error("compute capability {major}.{minor} is below 8.0, the oldest the kernels support")]
    UnsupportedDevice {
        /// Major compute capability.
        major: i32,
        /// Minor compute capability.
        minor: i32,
    },
    /// A CUDA runtime call on the C side failed.
    #[error("CUDA error {name} ({code}): {message}")]
    Cuda {
        /// The `cudaError_t` value.
        code: i32,
        /// Its symbolic name.
        name: String,
        /// The runtime's description.
        message: String,
    },
    /// A CUDA driver call failed (through cudarc).
    #[error("CUDA driver error: {0:?}")]
    Driver(#[from] cudarc::driver::DriverError),
    /// The C side refused the parameters (a bug: the Rust validation should have caught it).
    #[error("the kernel dispatcher refused the parameters: {0}")]
    Dispatch(String),
}

impl Error {
    /// True for errors decided on the host before any launch (the input was refused).
    pub fn is_validation(&self) -> bool {
        !matches!(
            self,
            Error::Environment { .. }
                | Error::NoDriver
                | Error::NoDevice { .. }
                | Error::Cuda { .. }
                | Error::Driver(_)
                | Error::Dispatch(_)
        )
    }
}

/// Result with the crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
