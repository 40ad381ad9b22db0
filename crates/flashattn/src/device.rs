//! Finding a usable GPU without panicking when there is none.

use std::sync::{Arc, Mutex};

use cudarc::driver::CudaContext;

use crate::error::{Error, Result};

/// True when the NVIDIA driver library (libcuda) can be loaded on this machine.
///
/// Asked of the dynamic loader directly, under the names cudarc tries, because the application
/// picks cudarc's linking mode: with `dynamic-linking` (candle's choice) cudarc has no presence
/// check, and a process that started already has libcuda mapped, so the open succeeds.
pub fn driver_available() -> bool {
    ["cuda", "nvcuda"]
        .iter()
        .flat_map(|name| cudarc::get_lib_name_candidates(name))
        // SAFETY: libcuda's initialisers have no preconditions; the handle is closed at once.
        .any(|file| unsafe { libloading::Library::new(file) }.is_ok())
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

/// Facts about a device the launch path needs on every call, read once per device.
#[derive(Debug)]
pub(crate) struct DeviceInfo {
    pub name: String,
    pub sm_count: usize,
    pub compute_capability: (i32, i32),
}

/// Cached [`DeviceInfo`] for the device of `ctx` (driver queries only on first use).
pub(crate) fn device_info(ctx: &CudaContext) -> Result<Arc<DeviceInfo>> {
    static CACHE: Mutex<Vec<(i32, Arc<DeviceInfo>)>> = Mutex::new(Vec::new());
    let key = ctx.cu_device();
    if let Some((_, info)) = CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(k, _)| *k == key)
    {
        return Ok(info.clone());
    }
    let info = Arc::new(DeviceInfo {
        name: ctx.name()?,
        sm_count: ctx.attribute(
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )? as usize,
        compute_capability: ctx.compute_capability()?,
    });
    CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((key, info.clone()));
    Ok(info)
}
