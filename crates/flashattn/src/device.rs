//! Finding a usable GPU without panicking when there is none.

use std::sync::Arc;

use cudarc::driver::CudaContext;

use crate::error::{Error, Result};

/// True when the NVIDIA driver library (libcuda) can be loaded on this machine.
pub fn driver_available() -> bool {
    // SAFETY: only tries to dlopen the library; loads nothing into cudarc's state.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Refuse devices older than sm_80 (the kernels use mma.sync m16n8k16, ldmatrix, cp.async).
pub fn require_supported_compute_capability(major: i32, minor: i32) -> Result<()> {
    if major < 8 {
        return Err(Error::UnsupportedDevice { major, minor });
    }
    Ok(())
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
