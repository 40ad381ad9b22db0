//! Finding a usable GPU without panicking when there is none, and the facts about it that
//! decide which compiled kernel configurations can run there.

use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::CudaContext;
use cudarc::driver::sys::CUdevice_attribute as Attr;

use crate::config::KernelConfig;
use crate::error::{Error, Result};

/// The variable that caps the shared memory per block the library may use (bytes, or with a
/// `K`/`KB` suffix in KiB): below the device's own opt-in limit it makes a large GPU choose
/// like a smaller one, e.g. `FLASHATTN_MAX_SMEM_PER_BLOCK=99K` runs an H100 as if it were an
/// RTX 4090 or L4 (sm_86/sm_89/sm_120 allow 99 KiB per block; A100 164 KiB; H100/B200 227 KiB).
pub const SMEM_CAP_VARIABLE: &str = "FLASHATTN_MAX_SMEM_PER_BLOCK";

/// True when the NVIDIA driver library (libcuda) can be loaded on this machine.
///
/// Asked of the dynamic loader directly because the application picks cudarc's linking mode:
/// with `dynamic-linking` (candle's choice) cudarc has neither its presence check nor its list
/// of library names, and a process that started already has libcuda mapped, so the open
/// succeeds. The names are the driver's own: the versioned soname the driver installs, the
/// development link, and the Windows DLL.
pub fn driver_available() -> bool {
    const NAMES: &[&str] = if cfg!(windows) {
        &["nvcuda.dll"]
    } else {
        &["libcuda.so.1", "libcuda.so"]
    };
    NAMES
        .iter()
        // SAFETY: libcuda's initialisers have no preconditions; the handle is closed at once.
        .any(|&name| unsafe { libloading::Library::new(name) }.is_ok())
}

/// Refuse devices older than sm_80 (the kernels use mma.sync m16n8k16, ldmatrix, cp.async).
pub fn require_supported_compute_capability(major: i32, minor: i32) -> Result<()> {
    if major < 8 {
        return Err(Error::UnsupportedDevice { major, minor });
    }
    Ok(())
}

/// The compute capability of `ctx`'s device as major * 10 + minor, the form
/// [`crate::KernelConfig::runs_on`] takes.
pub fn compute_capability(ctx: &CudaContext) -> Result<u32> {
    let (major, minor) = ctx.compute_capability()?;
    Ok((major * 10 + minor) as u32)
}

/// Open device `ordinal` (its primary context), checking the driver, the device count and the
/// compute capability first, so that a machine without a GPU gets an error, not a panic.
pub fn open_device(ordinal: usize) -> Result<Arc<CudaContext>> {
    if !driver_available() {
        return Err(Error::NoDriver);
    }
    cudarc::driver::result::init()?;
    let count = CudaContext::device_count()? as usize;
    if ordinal >= count {
        return Err(Error::NoDevice { ordinal, count });
    }
    let ctx = CudaContext::new(ordinal)?;
    let (major, minor) = ctx.compute_capability()?;
    require_supported_compute_capability(major, minor)?;
    Ok(ctx)
}

/// The SM targets this binary's kernels were compiled for (`FLASHATTN_CUDA_ARCHS` or
/// `CUDA_COMPUTE_CAP` at build time), e.g. `["80", "90a"]`. The portable kernels also carry PTX
/// of the newest one, so GPUs newer than all of them run those through the driver's JIT.
pub fn built_archs() -> impl Iterator<Item = &'static str> {
    flashattn_sys::BUILD_ARCHS
        .split(';')
        .filter(|a| !a.is_empty())
}

/// What the launch layer must know about a device to pick a kernel, read once per device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceFacts {
    /// The device's name, which keys the tuned dispatch tables.
    pub name: String,
    /// Streaming multiprocessors: how many CTAs fill the GPU.
    pub sm_count: usize,
    /// Compute capability, major * 10 + minor.
    pub compute_capability: u32,
    /// The device's opt-in limit of dynamic shared memory per block, in bytes.
    pub device_smem_per_block: usize,
    /// What this library may use per block: the device's limit, lowered by
    /// [`SMEM_CAP_VARIABLE`] when that is set.
    pub smem_per_block: usize,
}

impl DeviceFacts {
    /// Facts for a device described by hand (tests, and planning for a GPU you do not have);
    /// no shared-memory cap applied.
    pub fn new(
        name: &str,
        sm_count: usize,
        compute_capability: u32,
        smem_per_block: usize,
    ) -> Self {
        DeviceFacts {
            name: name.to_string(),
            sm_count,
            compute_capability,
            device_smem_per_block: smem_per_block,
            smem_per_block,
        }
    }

    /// Whether `config` was built for this device and fits in its shared memory: the
    /// configurations an automatic choice may take.
    pub fn can_run(&self, config: &KernelConfig) -> bool {
        config.runs_on(self.compute_capability) && config.smem_bytes <= self.smem_per_block
    }

    /// Why `config` cannot run here, as the error a call that names it gets; `Ok` if it can.
    pub fn check(&self, config: &KernelConfig) -> Result<()> {
        if !config.runs_on(self.compute_capability) {
            return Err(self.not_built(Some(config.name)));
        }
        if config.smem_bytes > self.smem_per_block {
            return Err(Error::SharedMemoryExceeded {
                config: config.name.to_string(),
                required: config.smem_bytes,
                limit: self.smem_per_block,
                capped: self.smem_per_block < self.device_smem_per_block,
            });
        }
        Ok(())
    }

    pub(crate) fn not_built(&self, config: Option<&str>) -> Error {
        Error::NotBuiltForDevice {
            config: config.map(str::to_string),
            compute_capability: self.compute_capability,
            built_archs: flashattn_sys::BUILD_ARCHS.to_string(),
        }
    }
}

/// The shared-memory cap from [`SMEM_CAP_VARIABLE`], if set.
pub(crate) fn smem_cap_from_env() -> Result<Option<usize>> {
    std::env::var_os(SMEM_CAP_VARIABLE)
        .map(|raw| parse_smem_cap(&raw.to_string_lossy()))
        .transpose()
}

/// A shared-memory size as [`SMEM_CAP_VARIABLE`] takes it: bytes, or KiB with `K`/`KB`.
pub fn parse_smem_cap(text: &str) -> Result<usize> {
    let t = text.trim();
    let upper = t.to_ascii_uppercase();
    let (digits, unit) =
        if let Some(d) = upper.strip_suffix("KB").or_else(|| upper.strip_suffix('K')) {
            (d.trim().to_string(), 1024)
        } else {
            (upper, 1)
        };
    match digits.parse::<usize>() {
        Ok(n) if n > 0 => n.checked_mul(unit).ok_or(()),
        _ => Err(()),
    }
    .map_err(|()| Error::Environment {
        variable: SMEM_CAP_VARIABLE,
        detail: format!(
            "`{text}` is not a positive size (bytes, or KiB with a K suffix, e.g. 99K)"
        ),
    })
}

/// Cached [`DeviceFacts`] for the device of `ctx` (driver queries only on first use).
pub fn device_facts(ctx: &CudaContext) -> Result<Arc<DeviceFacts>> {
    cached_device_facts(ctx).map(Arc::clone)
}

/// Devices whose facts are found without a lock: ordinals below this index an array.
const LOCK_FREE_DEVICES: usize = 64;

/// [`device_facts`] for the launch path: after the first call for a device, one atomic load
/// (no lock, no reference-count traffic, no driver call).
pub(crate) fn cached_device_facts(ctx: &CudaContext) -> Result<&'static Arc<DeviceFacts>> {
    static BY_ORDINAL: [OnceLock<Arc<DeviceFacts>>; LOCK_FREE_DEVICES] =
        [const { OnceLock::new() }; LOCK_FREE_DEVICES];
    // Larger ordinals, and the lock that makes one thread do a device's first queries. Entries
    // are leaked: at most one per device for the life of the process.
    static OTHERS: Mutex<Vec<(i32, &'static Arc<DeviceFacts>)>> = Mutex::new(Vec::new());
    let key = ctx.cu_device();
    let slot = usize::try_from(key).ok().and_then(|i| BY_ORDINAL.get(i));
    if let Some(facts) = slot.and_then(OnceLock::get) {
        return Ok(facts);
    }
    let mut others = OTHERS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(facts) = slot.and_then(OnceLock::get) {
        return Ok(facts);
    }
    if let Some((_, facts)) = others.iter().find(|(k, _)| *k == key) {
        return Ok(facts);
    }
    let facts = Arc::new(query_device_facts(ctx)?);
    Ok(match slot {
        Some(slot) => slot.get_or_init(|| facts),
        None => {
            let leaked: &'static Arc<DeviceFacts> = Box::leak(Box::new(facts));
            others.push((key, leaked));
            leaked
        }
    })
}

/// The driver queries behind [`DeviceFacts`], and the shared-memory cap from the environment.
fn query_device_facts(ctx: &CudaContext) -> Result<DeviceFacts> {
    let device_smem =
        ctx.attribute(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)? as usize;
    Ok(DeviceFacts {
        name: ctx.name()?,
        sm_count: ctx.attribute(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as usize,
        compute_capability: compute_capability(ctx)?,
        device_smem_per_block: device_smem,
        smem_per_block: smem_cap_from_env()?.map_or(device_smem, |cap| cap.min(device_smem)),
    })
}
