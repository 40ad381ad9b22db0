//! Every refusal of the launch layer, decided on the host: these run without a GPU.

use flashattn::{AttentionParams, DType, Error, RawForward, RawLse, RawTensor, Strides, validate};

const D: usize = 64;

fn tensor(ptr: u64, seqlen: usize, heads: usize) -> RawTensor {
    let s = Strides::bshd(seqlen, heads, D);
    RawTensor {
        ptr,
        len: 2 * seqlen * heads * D,
        dtype: DType::F16,
        strides: s,
    }
}

/// Four disjoint, aligned fake buffers for B=2, S=16, H=4, D=64.
fn good() -> (AttentionParams, RawForward) {
    let p = AttentionParams::new(2, 16, 16, 4, D);
    let mb = 1 << 20;
    let t = RawForward {
        q: tensor(mb, 16, 4),
        k: tensor(2 * mb, 16, 4),
        v: tensor(3 * mb, 16, 4),
        o: tensor(4 * mb, 16, 4),
        lse: Some(RawLse {
            ptr: 5 * mb,
            len: 2 * 4 * 16,
        }),
        alibi_slopes: None,
        sinks: None,
        workspace: None,
    };
    (p, t)
}

#[test]
fn softcap_must_be_finite_and_positive() {
    let (p, t) = good();
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let p = AttentionParams {
            softcap: Some(bad),
            ..p.clone()
        };
        match validate(&p, &t) {
            Err(flashattn::Error::InvalidSoftcap(x)) => assert!(x.is_nan() || x == bad),
            other => panic!("softcap {bad}: {other:?}"),
        }
    }
    let p = AttentionParams {
        softcap: Some(1e-6),
        ..p
    };
    assert!(validate(&p, &t).is_ok());
}

#[test]
fn head_vectors_are_checked_for_length_alignment_and_overlap() {
    use flashattn::RawVector;
    let (p, t) = good();
    let mb = 1 << 20;
    let ok = RawVector {
        ptr: 6 * mb,
        len: 4,
    };
    for (slopes, sinks) in [(Some(ok), None), (None, Some(ok))] {
        let t = RawForward {
            alibi_slopes: slopes,
            sinks,
            ..t
        };
        assert!(validate(&p, &t).is_ok());
        assert!(t.needs_score_mods(&p) == slopes.is_some());
    }
    let short = RawVector {
        ptr: 6 * mb,
        len: 3,
    };
    let odd = RawVector {
        ptr: 6 * mb + 2,
        len: 4,
    };
    for (bad, what) in [(short, "alibi_slopes"), (odd, "alibi_slopes")] {
        let t = RawForward {
            alibi_slopes: Some(bad),
            ..t
        };
        match validate(&p, &t) {
            Err(flashattn::Error::InvalidHeadVector { vector, .. }) => assert_eq!(vector, what),
            other => panic!("{other:?}"),
        }
    }
    let t_sinks = RawForward {
        sinks: Some(short),
        ..t
    };
    assert!(matches!(
        validate(&p, &t_sinks),
        Err(flashattn::Error::InvalidHeadVector {
            vector: "sinks",
            ..
        })
    ));
    // An output over a head vector: the kernel would read what other CTAs write.
    let inside_o = RawVector {
        ptr: 4 * mb + 64,
        len: 4,
    };
    let t = RawForward {
        sinks: Some(inside_o),
        ..t
    };
    match validate(&p, &t) {
        Err(flashattn::Error::Aliasing { output, other }) => {
            assert_eq!((output, other), ("o", "sinks"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn windows_and_alignment_give_the_documented_key_ranges() {
    use flashattn::{MaskAlignment, Window};
    // Sq = 4, Sk = 6: bottom-right diag = 2.
    let p = AttentionParams::new(1, 4, 6, 1, D);
    assert_eq!(p.visible_keys(0), 0..6);
    let causal = AttentionParams {
        causal: true,
        ..p.clone()
    };
    assert_eq!(causal.visible_keys(0), 0..3);
    assert_eq!(causal.visible_keys(3), 0..6);
    let top_left = AttentionParams {
        alignment: MaskAlignment::TopLeft,
        ..causal.clone()
    };
    assert_eq!(top_left.visible_keys(0), 0..1);
    assert_eq!(top_left.visible_keys(3), 0..4);
    let window = AttentionParams {
        window: Window::new(Some(1), None),
        ..causal.clone()
    };
    assert_eq!(window.visible_keys(0), 1..3);
    assert_eq!(window.visible_keys(3), 4..6);
    let both = AttentionParams {
        window: Window::new(Some(0), Some(1)),
        ..p.clone()
    };
    assert_eq!(both.visible_keys(3), 5..6);
    // Top-left with Sq > Sk and a window that ends before the first key: rows see nothing.
    let empty = AttentionParams {
        alignment: MaskAlignment::TopLeft,
        window: Window::new(Some(0), Some(0)),
        ..AttentionParams::new(1, 5, 2, 1, D)
    };
    assert!(empty.visible_keys(4).is_empty());
    assert_eq!(empty.visible_keys(1), 1..2);
    // Any window size is accepted; sizes past the longer sequence are unbounded.
    let huge = AttentionParams {
        window: Window::new(Some(usize::MAX), Some(1 << 40)),
        ..p
    };
    assert_eq!(huge.visible_keys(0), 0..6);
}

#[test]
fn a_good_call_passes_and_gets_the_default_scale() {
    let (p, t) = good();
    let scale = validate(&p, &t).unwrap();
    assert_eq!(scale, 1.0 / 8.0);
}

/// Sets one size of the parameters to zero.
type ZeroOne = fn(&mut AttentionParams);

#[test]
fn zero_sizes_are_refused() {
    let setters: [(&str, ZeroOne); 6] = [
        ("batch", |p| p.batch = 0),
        ("seqlen_q", |p| p.seqlen_q = 0),
        ("seqlen_k", |p| p.seqlen_k = 0),
        ("heads_q", |p| p.heads_q = 0),
        ("heads_kv", |p| p.heads_kv = 0),
        ("head_dim", |p| p.head_dim = 0),
    ];
    for (name, set) in setters {
        let (mut p, t) = good();
        set(&mut p);
        match validate(&p, &t) {
            Err(Error::ZeroSize { what }) => assert_eq!(what, name),
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn heads_must_divide() {
    let (mut p, t) = good();
    p.heads_kv = 3;
    assert!(matches!(
        validate(&p, &t),
        Err(Error::HeadsNotDivisible {
            heads_q: 4,
            heads_kv: 3
        })
    ));
}

#[test]
fn unsupported_head_dim_names_the_compiled_ones() {
    let (mut p, t) = good();
    p.head_dim = 72;
    match validate(&p, &t) {
        Err(e @ Error::UnsupportedHeadDim { head_dim: 72, .. }) => {
            assert!(e.to_string().contains("72"));
            assert!(e.is_validation());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn short_slices_are_refused() {
    let (p, mut t) = good();
    t.k.len -= 1;
    assert!(matches!(
        validate(&p, &t),
        Err(Error::SliceTooShort { tensor: "k", .. })
    ));
    let (p, mut t) = good();
    t.lse = Some(RawLse {
        ptr: 5 << 20,
        len: 10,
    });
    assert!(matches!(
        validate(&p, &t),
        Err(Error::SliceTooShort { tensor: "lse", .. })
    ));
    // Padded strides reach further than a dense slice of the same shape holds.
    let (p, mut t) = good();
    t.q.strides.row += 8;
    t.q.strides.batch += 8 * 16;
    assert!(matches!(
        validate(&p, &t),
        Err(Error::SliceTooShort { tensor: "q", .. })
    ));
}

#[test]
fn outputs_aliasing_inputs_are_refused() {
    let (p, mut t) = good();
    t.o.ptr = t.v.ptr + 64;
    assert!(matches!(
        validate(&p, &t),
        Err(Error::Aliasing {
            output: "o",
            other: "v"
        })
    ));
    let (p, mut t) = good();
    t.lse.as_mut().unwrap().ptr = t.o.ptr;
    assert!(matches!(
        validate(&p, &t),
        Err(Error::Aliasing {
            output: "lse",
            other: "o"
        })
    ));
    // Inputs may share memory (K and V views of one buffer, or Q = K).
    let (p, mut t) = good();
    t.k.ptr = t.q.ptr;
    assert!(validate(&p, &t).is_ok());
}

#[test]
fn a_self_overlapping_output_is_refused() {
    let (p, mut t) = good();
    t.o.strides.head = 32; // heads overlap within a row
    assert!(matches!(
        validate(&p, &t),
        Err(Error::SelfOverlappingOutput { .. })
    ));
    // Broadcast inputs (stride 0) are fine.
    let (p, mut t) = good();
    t.k.strides.batch = 0;
    assert!(validate(&p, &t).is_ok());
}

#[test]
fn misaligned_pointers_and_strides_are_refused() {
    let (p, mut t) = good();
    t.q.ptr += 2;
    assert!(matches!(
        validate(&p, &t),
        Err(Error::Misaligned { tensor: "q", .. })
    ));
    let (p, mut t) = good();
    t.v.strides.row = 4 * D as i64 + 4; // rows 8 bytes off a 16-byte boundary
    t.v.len *= 2;
    assert!(matches!(
        validate(&p, &t),
        Err(Error::Misaligned { tensor: "v", .. })
    ));
    let (p, mut t) = good();
    t.k.strides.head = -(D as i64);
    assert!(matches!(
        validate(&p, &t),
        Err(Error::Misaligned { tensor: "k", .. })
    ));
    let (p, mut t) = good();
    t.lse.as_mut().unwrap().ptr += 2;
    assert!(matches!(
        validate(&p, &t),
        Err(Error::Misaligned { tensor: "lse", .. })
    ));
}

#[test]
fn dtype_mismatch_is_refused() {
    let (p, mut t) = good();
    t.v.dtype = DType::BF16;
    assert!(matches!(
        validate(&p, &t),
        Err(Error::DtypeMismatch {
            tensor: "v",
            expected: DType::F16,
            found: DType::BF16
        })
    ));
}

#[test]
fn sizes_that_overflow_kernel_indexing_are_refused() {
    let (mut p, t) = good();
    p.seqlen_k = i32::MAX as usize;
    assert!(matches!(
        validate(&p, &t),
        Err(Error::TooLarge {
            what: "seqlen_k",
            ..
        })
    ));
    let (mut p, t) = good();
    p.batch = 70_000;
    assert!(matches!(
        validate(&p, &t),
        Err(Error::TooLarge { what: "batch", .. })
    ));
    // An element offset past i64::MAX through a huge batch stride.
    let (p, mut t) = good();
    t.q.strides.batch = i64::MAX - 7;
    t.q.len = usize::MAX;
    assert!(matches!(
        validate(&p, &t),
        Err(Error::TooLarge {
            what: "largest element offset",
            ..
        })
    ));
}

/// The layout constructors take any sizes: a stride past i64::MAX saturates there instead of
/// overflowing (a panic in debug builds, a wrapped stride in release), and validation refuses
/// a call that passes one.
#[test]
fn layout_helpers_saturate_and_validation_refuses_the_result() {
    let m = usize::MAX;
    let max = i64::MAX;
    let all = |s: Strides| (s.batch, s.row, s.head);
    assert_eq!(all(Strides::bshd(m, m, m)), (max, max, max));
    assert_eq!(all(Strides::bhsd(m, m, m)), (max, max, max));
    assert_eq!(all(Strides::packed(m, m)), (0, max, max));
    // Only the products past i64::MAX saturate.
    assert_eq!(
        all(Strides::bshd(1 << 40, 1 << 20, 1 << 10)),
        (max, 1 << 30, 1 << 10)
    );
    assert_eq!(
        all(Strides::bhsd(1 << 20, 1 << 40, 1 << 10)),
        (max, 1 << 10, 1 << 30)
    );
    assert_eq!(all(Strides::packed(1 << 60, 1 << 10)), (0, max, 1 << 10));
    assert_eq!(all(Strides::bshd(5, 8, 128)), (5 * 8 * 128, 8 * 128, 128));
    assert_eq!(all(Strides::bhsd(5, 8, 128)), (8 * 5 * 128, 128, 5 * 128));
    // i64::MAX is no multiple of a 16-byte chunk.
    let (p, mut t) = good();
    t.k.strides = Strides::bshd(1 << 40, 1 << 20, D);
    assert!(matches!(
        validate(&p, &t),
        Err(Error::Misaligned { tensor: "k", .. })
    ));
}

#[test]
fn bad_scales_are_refused() {
    for s in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let (mut p, t) = good();
        p.softmax_scale = Some(s);
        assert!(
            matches!(validate(&p, &t), Err(Error::InvalidScale(_))),
            "{s}"
        );
    }
}

#[test]
fn devices_below_sm80_are_refused() {
    assert!(matches!(
        flashattn::require_supported_compute_capability(7, 5),
        Err(Error::UnsupportedDevice { major: 7, minor: 5 })
    ));
    assert!(flashattn::require_supported_compute_capability(8, 0).is_ok());
    assert!(flashattn::require_supported_compute_capability(9, 0).is_ok());
}

#[test]
fn no_driver_is_an_error_not_a_panic() {
    match flashattn::open_device(0) {
        Err(Error::NoDriver) => assert!(!flashattn::driver_available()),
        Err(Error::NoDevice { .. }) | Err(Error::Driver(_)) => {
            assert!(flashattn::driver_available())
        }
        Ok(ctx) => {
            let (major, _) = ctx.compute_capability().unwrap();
            assert!(major >= 8);
        }
        Err(e) => panic!("unexpected: {e}"),
    }
    if flashattn::driver_available() {
        assert!(matches!(
            flashattn::open_device(1 << 20),
            Err(Error::NoDevice { .. }) | Err(Error::Driver(_))
        ));
    }
}

#[test]
fn compiled_configs_are_listed() {
    let configs = flashattn::kernel_configs();
    assert!(!configs.is_empty());
    for c in configs {
        assert!(flashattn::compiled_head_dims(c.dtype).contains(&c.head_dim));
        // The warp-specialized kernel's producer warpgroup computes no rows.
        let row_warps = c.warps - if c.warp_specialized() { 4 } else { 0 };
        assert_eq!(row_warps % c.kv_splits, 0);
        assert_eq!(c.block_m % (16 * row_warps / c.kv_splits), 0, "{}", c.name);
    }
}

// The CUDA runtime linked into this binary (statically, through flashattn-sys): the same one
// the kernels are launched with.
unsafe extern "C" {
    fn cudaMalloc(ptr: *mut *mut std::ffi::c_void, size: usize) -> i32;
    fn cudaGetLastError() -> i32;
}

/// `forward` on contiguous BSHD buffers shaped by `p` (Q and O by its query length and heads,
/// K and V by its key length and KV heads).
fn forward_bshd(
    stream: &cudarc::driver::CudaStream,
    p: &AttentionParams,
    qkv: [&cudarc::driver::CudaSlice<half::f16>; 3],
    o: &mut cudarc::driver::CudaSlice<half::f16>,
    lse: Option<&mut cudarc::driver::CudaSlice<f32>>,
) -> flashattn::Result<flashattn::LaunchInfo> {
    let kv_s = Strides::bshd(p.seqlen_k, p.heads_kv, p.head_dim);
    forward_kv_strided(stream, p, qkv, kv_s, o, lse)
}

/// `forward_bshd` with K and V in `kv_s` instead.
fn forward_kv_strided(
    stream: &cudarc::driver::CudaStream,
    p: &AttentionParams,
    [q, k, v]: [&cudarc::driver::CudaSlice<half::f16>; 3],
    kv_s: Strides,
    o: &mut cudarc::driver::CudaSlice<half::f16>,
    lse: Option<&mut cudarc::driver::CudaSlice<f32>>,
) -> flashattn::Result<flashattn::LaunchInfo> {
    let q_s = Strides::bshd(p.seqlen_q, p.heads_q, p.head_dim);
    flashattn::forward(
        stream,
        p,
        flashattn::Tensor::new(q, q_s),
        flashattn::Tensor::new(k, kv_s),
        flashattn::Tensor::new(v, kv_s),
        flashattn::TensorMut::new(o, q_s),
        lse,
    )
}

/// `n` values uniform in [-2, 2), drawn from `rng`.
fn uniform_f16(rng: &mut rand::rngs::StdRng, n: usize) -> Vec<half::f16> {
    use rand::Rng;
    (0..n)
        .map(|_| half::f16::from_f32(rng.random_range(-2.0..2.0)))
        .collect()
}

/// A failed runtime call leaves an error in the thread's last-error slot; a launch that read
/// that slot to judge itself (`<<<>>>` then cudaGetLastError) reported the earlier failure as
/// its own, which is how a failed cudaFuncSetAttribute used to fail the next healthy launch.
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_stale_runtime_error_does_not_fail_the_next_launch() {
    let ctx = flashattn::open_device(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    ctx.bind_to_thread().unwrap();
    let mut ptr = std::ptr::null_mut();
    // SAFETY: an allocation far beyond any GPU's memory fails and returns no pointer.
    let status = unsafe { cudaMalloc(&mut ptr, 1 << 60) };
    assert_ne!(status, 0, "a 1 EiB allocation succeeded");
    let d = *flashattn::compiled_head_dims(DType::F16).first().unwrap();
    let p = AttentionParams::new(1, 64, 64, 2, d);
    let n = 64 * 2 * d;
    let q = stream.alloc_zeros::<half::f16>(n).unwrap();
    let k = stream.alloc_zeros::<half::f16>(n).unwrap();
    let v = stream.alloc_zeros::<half::f16>(n).unwrap();
    let mut o = stream.alloc_zeros::<half::f16>(n).unwrap();
    let run = forward_bshd(&stream, &p, [&q, &k, &v], &mut o, None);
    assert!(run.is_ok(), "a healthy launch failed: {run:?}");
    stream.synchronize().unwrap();
    // SAFETY: no arguments; clears this test's deliberate error for the tests after it.
    unsafe { cudaGetLastError() };
}

/// Every buffer must belong to the launch stream's context: one of another context (a second,
/// non-primary context on the same device) is refused before anything is queued for it, while
/// two handles of the device's primary context are one context. A driver failure cudarc parks
/// in the context (its stream-ordering guards cannot return one) fails the call that collects
/// it, and only that call.
#[test]
#[ignore = "needs a CUDA GPU"]
fn buffers_of_another_context_are_refused_and_parked_driver_errors_reported() {
    use cudarc::driver::sys::cudaError_enum;
    use flashattn::{MergeShape, Tensor, TensorMut};
    use half::f16;
    let ctx = flashattn::open_device(0).expect("a CUDA GPU");
    let again = flashattn::open_device(0).unwrap();
    let other = cudarc::driver::CudaContext::new_non_primary(0, 0).unwrap();
    let d = *flashattn::compiled_head_dims(DType::F16).first().unwrap();
    let p = AttentionParams::new(1, 64, 64, 2, d);
    let n = 64 * 2 * d;
    let stream = ctx.default_stream();
    let q = again.default_stream().alloc_zeros::<f16>(n).unwrap();
    let k = stream.alloc_zeros::<f16>(n).unwrap();
    let v = stream.alloc_zeros::<f16>(n).unwrap();
    let mut o = stream.alloc_zeros::<f16>(n).unwrap();
    let mut lse = stream.alloc_zeros::<f32>(2 * 64).unwrap();
    forward_bshd(&stream, &p, [&q, &k, &v], &mut o, Some(&mut lse)).unwrap();

    let far = other.default_stream();
    let far_q = far.alloc_zeros::<f16>(n).unwrap();
    let mut far_o = far.alloc_zeros::<f16>(n).unwrap();
    let mut far_lse = far.alloc_zeros::<f32>(2 * 64).unwrap();
    let refused = |r: flashattn::Result<flashattn::LaunchInfo>| match r {
        Err(Error::ContextMismatch { tensor }) => tensor,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        refused(forward_bshd(&stream, &p, [&far_q, &k, &v], &mut o, None)),
        "q"
    );
    assert_eq!(
        refused(forward_bshd(&stream, &p, [&q, &k, &v], &mut far_o, None)),
        "o"
    );
    assert_eq!(
        refused(forward_bshd(
            &stream,
            &p,
            [&q, &k, &v],
            &mut o,
            Some(&mut far_lse)
        )),
        "lse"
    );
    let shape = MergeShape {
        batch: 1,
        seqlen: 64,
        heads: 2,
        head_dim: d,
    };
    let s = Strides::bshd(64, 2, d);
    let merged = flashattn::merge_states(
        &stream,
        &shape,
        Tensor::new(&q, s),
        &far_lse,
        Tensor::new(&k, s),
        &lse,
        TensorMut::new(&mut o, s),
        &mut lse.clone(),
    );
    assert!(
        matches!(merged, Err(Error::ContextMismatch { tensor: "lse_a" })),
        "{merged:?}"
    );
    // Decode: a split launch with its workspace runs; a foreign workspace or block table is
    // refused.
    let facts = flashattn::device_facts(&ctx).unwrap();
    let dp = flashattn::DecodeParams {
        num_splits: Some(2),
        ..flashattn::DecodeParams::new(1, 64, 2, 2, d)
    };
    let qs = Strides::bshd(1, 2, d);
    let mut dec_o = stream.alloc_zeros::<f16>(2 * d).unwrap();
    let ws_len = flashattn::decode_workspace_len(&dp, 2);
    let mut ws = stream.alloc_zeros::<f32>(ws_len).unwrap();
    let mut far_ws = far.alloc_zeros::<f32>(ws_len).unwrap();
    let table = stream.clone_htod(&[0i32, 1, 2, 3]).unwrap();
    let far_table = far.clone_htod(&[0i32, 1, 2, 3]).unwrap();
    type NoTable<'a> = Option<flashattn::PagedKv<'a, cudarc::driver::CudaSlice<i32>>>;
    let no_lens = None::<&cudarc::driver::CudaSlice<i32>>;
    let mut decode = |paged: NoTable, ws: &mut cudarc::driver::CudaSlice<f32>| {
        let kv_s = match paged {
            Some(_) => Strides::bshd(16, 2, d),
            None => s,
        };
        flashattn::decode(
            &stream,
            &facts,
            &dp,
            Tensor::new(&q, qs),
            Tensor::new(&k, kv_s),
            Tensor::new(&v, kv_s),
            paged,
            no_lens,
            TensorMut::new(&mut dec_o, qs),
            None,
            Some(ws),
        )
    };
    decode(None, &mut ws).unwrap();
    let paged = |table| flashattn::PagedKv {
        block_table: table,
        width: 4,
        page_size: 16,
        num_pages: 4,
    };
    decode(Some(paged(&table)), &mut ws).unwrap();
    for (r, what) in [
        (decode(None, &mut far_ws), "workspace"),
        (decode(Some(paged(&far_table)), &mut ws), "block_table"),
    ] {
        assert!(
            matches!(r, Err(Error::ContextMismatch { tensor }) if tensor == what),
            "{what}: {r:?}"
        );
    }
    stream.synchronize().unwrap();
    // The refusals took no guard of a foreign buffer, so they parked nothing.
    ctx.check_err().unwrap();

    ctx.record_err::<()>(Err(cudarc::driver::DriverError(
        cudaError_enum::CUDA_ERROR_INVALID_HANDLE,
    )));
    match forward_bshd(&stream, &p, [&q, &k, &v], &mut o, None) {
        Err(Error::Driver(e)) => assert_eq!(e.0, cudaError_enum::CUDA_ERROR_INVALID_HANDLE),
        other => panic!("{other:?}"),
    }
    forward_bshd(&stream, &p, [&q, &k, &v], &mut o, Some(&mut lse)).unwrap();
    stream.synchronize().unwrap();
    ctx.check_err().unwrap();
}

/// Kernels above 48 KiB of shared memory opt in once per device and then launch without
/// asking again; every later launch must still run, and give the first one's bits, on a
/// tracked context with a second stream (cudarc's events on every buffer) as on one without.
#[test]
#[ignore = "needs a CUDA GPU"]
fn remembered_shared_memory_opt_ins_and_event_tracking_change_no_result() {
    use half::f16;
    let tracked = flashattn::open_device(0).expect("a CUDA GPU");
    let untracked = flashattn::open_device(0).unwrap();
    // SAFETY: the untracked buffers below are used on their own stream only.
    unsafe { untracked.disable_event_tracking() };
    let facts = flashattn::device_facts(&tracked).unwrap();
    let large = flashattn::kernel_configs()
        .iter()
        .filter(|c| c.dtype == DType::F16 && c.smem_bytes > 48 * 1024 && facts.can_run(c));
    for config in large {
        let d = config.head_dim;
        let p = AttentionParams {
            kernel: flashattn::KernelChoice::Id(config.id),
            ..AttentionParams::new(2, 300, 300, 4, d)
        };
        let n = 2 * 300 * 4 * d;
        let host: Vec<f16> = (0..n)
            .map(|i| f16::from_f32((i % 13) as f32 / 7.0 - 0.9))
            .collect();
        let mut outputs = Vec::new();
        for ctx in [&tracked, &untracked] {
            let stream = ctx.new_stream().unwrap();
            let q = stream.clone_htod(&host).unwrap();
            let (k, v) = (q.clone(), q.clone());
            for _ in 0..2 {
                let mut o = stream.alloc_zeros::<f16>(n).unwrap();
                let info = forward_bshd(&stream, &p, [&q, &k, &v], &mut o, None)
                    .unwrap_or_else(|e| panic!("{}: {e}", config.name));
                assert_eq!(info.config.id, config.id);
                outputs.push(stream.clone_dtoh(&o).unwrap());
            }
        }
        assert!(outputs.windows(2).all(|w| w[0] == w[1]), "{}", config.name);
    }
}

/// A window wider than the sequences changes no score, so a call with one runs the general
/// kernel variant (cuda-src/common/features.cuh) and must give the dense variant's bits: O and
/// LSE, causal and not, on every configuration this GPU runs and on lengths no tile divides.
#[test]
#[ignore = "needs a CUDA GPU"]
fn dense_and_general_variants_give_the_same_bits() {
    use half::f16;
    let ctx = flashattn::open_device(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let facts = flashattn::device_facts(&ctx).unwrap();
    use rand::SeedableRng;
    let (batch, sq, sk, heads) = (2, 113, 239, 2);
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut draw = |n: usize| uniform_f16(&mut rng, n);
    let mut compared = 0;
    for config in flashattn::kernel_configs()
        .iter()
        .filter(|c| c.dtype == DType::F16 && facts.can_run(c))
    {
        let d = config.head_dim;
        let q = stream.clone_htod(&draw(batch * sq * heads * d)).unwrap();
        let k = stream.clone_htod(&draw(batch * sk * heads * d)).unwrap();
        let v = stream.clone_htod(&draw(batch * sk * heads * d)).unwrap();
        for causal in [false, true] {
            let wide = Some(sq + sk);
            let mut bits = Vec::new();
            for window in [
                flashattn::Window::UNBOUNDED,
                flashattn::Window::new(wide, wide),
            ] {
                let p = AttentionParams {
                    causal,
                    window,
                    kernel: flashattn::KernelChoice::Id(config.id),
                    ..AttentionParams::new(batch, sq, sk, heads, d)
                };
                let mut o = stream.alloc_zeros::<f16>(batch * sq * heads * d).unwrap();
                let mut lse = stream.alloc_zeros::<f32>(batch * heads * sq).unwrap();
                forward_bshd(&stream, &p, [&q, &k, &v], &mut o, Some(&mut lse))
                    .unwrap_or_else(|e| panic!("{} causal {causal}: {e}", config.name));
                let o = stream.clone_dtoh(&o).unwrap();
                let lse: Vec<u32> = stream
                    .clone_dtoh(&lse)
                    .unwrap()
                    .iter()
                    .map(|x| x.to_bits())
                    .collect();
                assert!(
                    o.iter().all(|x| x.is_finite()),
                    "{} causal {causal}: non-finite O",
                    config.name
                );
                bits.push((o.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), lse));
            }
            assert!(
                bits[0] == bits[1],
                "{} causal {causal}: the variants differ",
                config.name
            );
            compared += 1;
        }
    }
    println!("variants: dense and general agree on {compared} (configuration, causal) pairs");
    assert!(compared > 0, "no f16 configuration runs here");
}

/// A warp-specialized configuration runs its own kernel on tensors a TMA tensor map describes
/// and hands the call to its fallback tile when one cannot (here K and V shared by both batches:
/// batch stride 0); `LaunchInfo` names the kernel that ran, and the fallback's answer is the one
/// the fallback configuration gives when named directly, bit for bit. (The GPU grid and the
/// fuzzer check the warp-specialized kernel itself against the reference.)
#[test]
#[ignore = "needs a CUDA GPU"]
fn warp_specialized_configs_report_the_kernel_that_ran() {
    use half::f16;
    use rand::SeedableRng;
    let ctx = flashattn::open_device(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let facts = flashattn::device_facts(&ctx).unwrap();
    let (batch, sq, sk, heads) = (2, 300, 239, 2);
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let mut draw = |n: usize| uniform_f16(&mut rng, n);
    let mut checked = 0;
    for ws in flashattn::kernel_configs()
        .iter()
        .filter(|c| c.dtype == DType::F16 && c.warp_specialized() && facts.can_run(c))
    {
        let d = ws.head_dim;
        let q = stream.clone_htod(&draw(batch * sq * heads * d)).unwrap();
        let k = stream.clone_htod(&draw(batch * sk * heads * d)).unwrap();
        let v = stream.clone_htod(&draw(batch * sk * heads * d)).unwrap();
        let p = |kernel| AttentionParams {
            causal: true,
            kernel,
            ..AttentionParams::new(batch, sq, sk, heads, d)
        };
        let mut o = stream.alloc_zeros::<f16>(batch * sq * heads * d).unwrap();
        let info = forward_bshd(
            &stream,
            &p(flashattn::KernelChoice::Id(ws.id)),
            [&q, &k, &v],
            &mut o,
            None,
        )
        .unwrap();
        assert_eq!(
            info.config.id, ws.id,
            "{}: fell back on BSHD tensors",
            ws.name
        );

        // K and V of batch 0 serve both batches.
        let shared = Strides {
            batch: 0,
            ..Strides::bshd(sk, heads, d)
        };
        let run = |kernel| {
            let mut o = stream.alloc_zeros::<f16>(batch * sq * heads * d).unwrap();
            let info = forward_kv_strided(&stream, &p(kernel), [&q, &k, &v], shared, &mut o, None)
                .unwrap();
            (info.config, stream.clone_dtoh(&o).unwrap())
        };
        let (ran, o_ws) = run(flashattn::KernelChoice::Id(ws.id));
        assert!(
            !ran.warp_specialized() && ran.head_dim == d,
            "{}: batch stride 0 ran {}",
            ws.name,
            ran.name
        );
        let (named, o_fallback) = run(flashattn::KernelChoice::Id(ran.id));
        assert_eq!(named.id, ran.id);
        assert!(o_ws.iter().all(|x| x.is_finite()), "{}", ws.name);
        assert!(
            o_ws == o_fallback,
            "{}: the fallback's bits differ",
            ws.name
        );
        checked += 1;
    }
    println!("warp-specialized: {checked} configurations ran their kernel and their fallback");
    assert!(
        checked > 0 || facts.compute_capability != 90,
        "no warp-specialized configuration runs on this sm_90 device"
    );
}

/// Which feed brought Q, K and V into shared memory, as `LaunchInfo` reports it: TMA boxes on
/// the Hopper tiles wherever tensor maps describe the tensors, every thread's cp.async on the
/// portable kernel, and on every tile where K and V are shared by both batches (batch stride 0,
/// which no tensor map describes; a warp-specialized tile hands that call to its fallback). The
/// two feeds give the same bits: a dense call whose batch 1 holds a copy of batch 0's K and V
/// computes what the batch-stride-0 call computes, on the same one-tile-per-CTA kernel.
#[test]
#[ignore = "needs a CUDA GPU"]
fn launches_report_their_feed_and_the_feeds_agree() {
    use flashattn::Feed;
    use half::f16;
    use rand::SeedableRng;
    let ctx = flashattn::open_device(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let facts = flashattn::device_facts(&ctx).unwrap();
    let (batch, sq, sk) = (2, 300, 239);
    let mut rng = rand::rngs::StdRng::seed_from_u64(12);
    let mut draw = |n: usize| uniform_f16(&mut rng, n);
    let (mut tma, mut compared) = (0, 0);
    // Two heads: fewer CTAs than SMs, the TMA kernel's O leaves by every thread's stores; 40
    // heads: more CTAs than SMs (132 on an H100 or H200), O leaves by TMA stores, whose boxes
    // must clip at each sequence's end.
    let configs = flashattn::kernel_configs()
        .iter()
        .filter(|c| c.dtype == DType::F16 && facts.can_run(c));
    for (heads, c) in [2, 40]
        .into_iter()
        .flat_map(|h| configs.clone().map(move |c| (h, c)))
    {
        let d = c.head_dim;
        let q = stream.clone_htod(&draw(batch * sq * heads * d)).unwrap();
        // Batch 1's K and V are batch 0's.
        let kv_batch = |x: Vec<f16>| [x.clone(), x].concat();
        let k = stream.clone_htod(&kv_batch(draw(sk * heads * d))).unwrap();
        let v = stream.clone_htod(&kv_batch(draw(sk * heads * d))).unwrap();
        let p = AttentionParams {
            causal: true,
            kernel: flashattn::KernelChoice::Id(c.id),
            ..AttentionParams::new(batch, sq, sk, heads, d)
        };
        let mut o = stream.alloc_zeros::<f16>(batch * sq * heads * d).unwrap();
        let dense = forward_bshd(&stream, &p, [&q, &k, &v], &mut o, None).unwrap();
        let o_dense = stream.clone_dtoh(&o).unwrap();
        // The wgmma kernels (names `sm90_`); a build for 90a alone gives the portable ones a
        // minimum compute capability of 90 too.
        let hopper = c.name.starts_with("sm90_");
        let want = if hopper { Feed::Tma } else { Feed::CpAsync };
        assert_eq!(dense.config.id, c.id, "{}", c.name);
        assert_eq!(dense.feed, want, "{} H{heads}: dense BSHD tensors", c.name);
        tma += usize::from(dense.feed == Feed::Tma);

        let shared = Strides {
            batch: 0,
            ..Strides::bshd(sk, heads, d)
        };
        let mut o = stream.alloc_zeros::<f16>(batch * sq * heads * d).unwrap();
        let broadcast =
            forward_kv_strided(&stream, &p, [&q, &k, &v], shared, &mut o, None).unwrap();
        assert_eq!(
            broadcast.feed,
            Feed::CpAsync,
            "{}: batch stride 0 ran {}",
            c.name,
            broadcast.config.name
        );
        if broadcast.config.id == c.id {
            let o_broadcast = stream.clone_dtoh(&o).unwrap();
            assert!(o_dense.iter().all(|x| x.is_finite()), "{}", c.name);
            assert!(
                o_dense == o_broadcast,
                "{} H{heads}: the {} and cp.async feeds' bits differ",
                c.name,
                dense.feed
            );
            compared += usize::from(hopper);
        }
    }
    println!(
        "feeds: {tma} launches by TMA on dense tensors; {compared} Hopper launches gave the same bits by both feeds"
    );
    assert!(
        facts.compute_capability != 90 || (tma > 0 && compared > 0),
        "no Hopper configuration ran here on this sm_90 device"
    );
}

fn merge_state(ptr: u64, lse: u64) -> flashattn::RawState {
    flashattn::RawState {
        o: tensor(ptr, 16, 4),
        lse,
        lse_len: 2 * 4 * 16,
    }
}

#[test]
fn merges_are_validated() {
    use flashattn::{MergeShape, validate_merge};
    let shape = MergeShape {
        batch: 2,
        seqlen: 16,
        heads: 4,
        head_dim: D,
    };
    let mb = 1 << 20;
    let (a, b) = (merge_state(mb, 2 * mb), merge_state(3 * mb, 4 * mb));
    assert!(validate_merge(&shape, &a, &b, &merge_state(5 * mb, 6 * mb)).is_ok());
    // In place: the output is exactly one of the inputs.
    assert!(validate_merge(&shape, &a, &b, &b).is_ok());
    // A partial overlap is refused.
    let shifted = merge_state(3 * mb + 64, 6 * mb);
    assert!(matches!(
        validate_merge(&shape, &a, &b, &shifted),
        Err(Error::Aliasing {
            output: "o",
            other: "o_b"
        })
    ));
    let short = flashattn::RawState {
        lse_len: 5,
        ..merge_state(5 * mb, 6 * mb)
    };
    assert!(matches!(
        validate_merge(&shape, &a, &b, &short),
        Err(Error::SliceTooShort { tensor: "lse", .. })
    ));
    // A lane's 32-bit column index steps 256 past the last column: head dims within 256 of
    // i32::MAX are refused (the multiples of 8 from 2^31 - 256 up), the ones below reach the
    // buffer checks.
    let wide = MergeShape {
        head_dim: (1 << 31) - 256,
        ..shape
    };
    match validate_merge(&wide, &a, &b, &b) {
        Err(Error::TooLarge {
            what: "head_dim",
            max,
            ..
        }) => assert_eq!(max, i32::MAX as u128 - 256),
        other => panic!("{other:?}"),
    }
    let widest = MergeShape {
        head_dim: (1 << 31) - 264,
        ..shape
    };
    assert!(matches!(
        validate_merge(&widest, &a, &b, &b),
        Err(Error::SliceTooShort { tensor: "o_a", .. })
    ));
    let odd = MergeShape {
        head_dim: 12,
        ..shape
    };
    assert!(matches!(
        validate_merge(&odd, &a, &b, &b),
        Err(Error::Misaligned { .. })
    ));
    let bf = flashattn::RawState {
        o: RawTensor {
            dtype: DType::BF16,
            ..a.o
        },
        ..a
    };
    assert!(matches!(
        validate_merge(
            &shape,
            &a,
            &b,
            &flashattn::RawState {
                o: bf.o,
                ..merge_state(5 * mb, 6 * mb)
            }
        ),
        Err(Error::DtypeMismatch { .. })
    ));
}

/// The workspace is an output: it may overlap nothing, and must be 4-byte aligned; any length
/// validates (a shorter one than forward_workspace_len is not used).
#[test]
fn workspace_is_checked_as_an_output() {
    let (p, t) = good();
    let mb = 1 << 20;
    use flashattn::RawVector;
    let apart = RawVector {
        ptr: 8 * mb,
        len: 1,
    };
    assert!(
        validate(
            &p,
            &RawForward {
                workspace: Some(apart),
                ..t
            }
        )
        .is_ok()
    );
    let over_q = RawVector { ptr: mb, len: 64 };
    match validate(
        &p,
        &RawForward {
            workspace: Some(over_q),
            ..t
        },
    ) {
        Err(flashattn::Error::Aliasing { output, other }) => {
            assert_eq!((output, other), ("workspace", "q"))
        }
        other => panic!("{other:?}"),
    }
    let over_lse = RawVector {
        ptr: 5 * mb + 8,
        len: 4,
    };
    match validate(
        &p,
        &RawForward {
            workspace: Some(over_lse),
            ..t
        },
    ) {
        Err(flashattn::Error::Aliasing { output, other }) => {
            assert_eq!((output, other), ("workspace", "lse"))
        }
        other => panic!("{other:?}"),
    }
    let odd = RawVector {
        ptr: 8 * mb + 2,
        len: 4,
    };
    assert!(matches!(
        validate(
            &p,
            &RawForward {
                workspace: Some(odd),
                ..t
            }
        ),
        Err(flashattn::Error::Misaligned {
            tensor: "workspace",
            ..
        })
    ));
}
