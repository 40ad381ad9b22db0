//! CPU tests: every way a call is refused comes back as a candle error (never a panic), with a
//! message that names the problem; and the unfused baseline the GPU tests compare with is
//! itself right, checked against the f64 reference on the CPU.

use candle_core::{DType, Device, Tensor};
use flashattn_candle::{
    flash_attn, flash_attn_alibi, flash_attn_alibi_windowed_softcap, flash_attn_varlen,
    flash_attn_varlen_alibi_windowed_softcap, flash_attn_windowed, flash_attn_with_lse,
    plain_attention,
};
use flashattn_ref::{Problem, Strides, TensorRef};

fn zeros(shape: &[usize], dtype: DType) -> Tensor {
    Tensor::zeros(shape, dtype, &Device::Cpu).unwrap()
}

/// Both entry points refuse the call, and the message contains `needle`.
fn refused(q: &Tensor, k: &Tensor, v: &Tensor, scale: f32, needle: &str) {
    let e = flash_attn(q, k, v, scale, false).expect_err("flash_attn accepted the call");
    let text = e.to_string();
    assert!(text.contains(needle), "expected '{needle}' in: {text}");
    assert!(text.starts_with("flashattn: "), "{text}");
    let e = flash_attn_with_lse(q, k, v, scale, true).expect_err("flash_attn_with_lse accepted");
    assert!(e.to_string().contains(needle), "{e}");
}

const S: f32 = 0.125;

#[test]
fn cpu_tensors_are_refused_with_a_pointer_to_cuda() {
    let q = zeros(&[1, 4, 2, 64], DType::BF16);
    refused(&q, &q, &q, S, "CUDA devices only");
}

#[test]
fn other_dtypes_are_refused() {
    for dt in [DType::F32, DType::F64, DType::U8, DType::I64] {
        let q = zeros(&[1, 4, 2, 64], dt);
        refused(&q, &q, &q, S, "f16 or bf16");
    }
    let q = zeros(&[1, 4, 2, 64], DType::BF16);
    let k = zeros(&[1, 4, 2, 64], DType::F16);
    refused(&q, &k, &q, S, "k has dtype F16 but q has BF16");
    refused(&q, &q, &k, S, "v has dtype F16 but q has BF16");
}

#[test]
fn wrong_ranks_and_disagreeing_shapes_are_refused() {
    let t = |s: &[usize]| zeros(s, DType::F16);
    let q = t(&[1, 4, 4, 64]);
    refused(&t(&[4, 4, 64]), &q, &q, S, "rank 4");
    refused(&q, &t(&[1, 1, 4, 4, 64]), &q, S, "rank 4");
    // k and v differ.
    refused(
        &q,
        &t(&[1, 5, 4, 64]),
        &t(&[1, 6, 4, 64]),
        S,
        "must be equal",
    );
    // Batch or head dim differ between q and k/v.
    refused(&q, &t(&[2, 4, 4, 64]), &t(&[2, 4, 4, 64]), S, "must agree");
    refused(&q, &t(&[1, 4, 4, 32]), &t(&[1, 4, 4, 32]), S, "must agree");
    // GQA: 4 query heads over 3 KV heads.
    refused(
        &q,
        &t(&[1, 4, 3, 64]),
        &t(&[1, 4, 3, 64]),
        S,
        "not a multiple",
    );
    // Zero sizes.
    let e = t(&[1, 0, 4, 64]);
    refused(&e, &q, &q, S, "seqlen_q is 0");
    refused(&q, &e, &e, S, "seqlen_k is 0");
}

#[test]
fn a_head_dim_without_kernels_is_refused() {
    for d in [40, 8, 512] {
        let q = zeros(&[1, 4, 2, d], DType::BF16);
        refused(&q, &q, &q, S, &format!("head_dim {d} has no kernel"));
    }
}

#[test]
fn a_non_contiguous_head_dim_is_refused_and_contiguous_is_the_fix() {
    // [b, s, d, h] storage viewed as [b, s, h, d]: head_dim has stride h.
    let q = zeros(&[1, 4, 64, 2], DType::BF16).transpose(2, 3).unwrap();
    let k = zeros(&[1, 4, 2, 64], DType::BF16);
    let e = flash_attn(&q, &k, &k, S, false).unwrap_err().to_string();
    assert!(
        e.contains("not contiguous") && e.contains(".contiguous()"),
        "{e}"
    );
    refused(&k, &q, &k, S, "k has strides");
    refused(&k, &k, &q, S, "v has strides");
    // After the copy the caller asked for, only the device stands in the way here.
    let fixed = q.contiguous().unwrap();
    refused(&fixed, &k, &k, S, "CUDA devices only");
    // Views the kernels take as they are get past the layout checks: [b, h, s, d] storage
    // transposed, and rows narrowed out of a longer buffer.
    let heads_first = zeros(&[1, 2, 4, 64], DType::BF16).transpose(1, 2).unwrap();
    refused(&heads_first, &k, &k, S, "CUDA devices only");
    let narrowed = zeros(&[1, 9, 2, 64], DType::BF16).narrow(1, 3, 4).unwrap();
    refused(&narrowed, &k, &k, S, "CUDA devices only");
}

#[test]
fn a_start_offset_off_the_16_byte_grid_is_refused_and_force_contiguous_is_the_fix() {
    let k = zeros(&[1, 4, 2, 64], DType::F16);
    // A contiguous view 3 elements into its buffer: .contiguous() keeps it as it is, offset and all.
    let flat = zeros(&[4 * 2 * 64 + 3], DType::F16);
    let q = flat
        .narrow(0, 3, 4 * 2 * 64)
        .unwrap()
        .reshape((1, 4, 2, 64))
        .unwrap();
    refused(&q, &k, &k, S, "starts at element 3");
    refused(&q.contiguous().unwrap(), &k, &k, S, ".force_contiguous()");
    refused(&k, &k, &q, S, "v starts at element 3");
    refused(
        &q.force_contiguous().unwrap(),
        &k,
        &k,
        S,
        "CUDA devices only",
    );
}

#[test]
fn bad_scales_are_refused() {
    let q = zeros(&[1, 4, 2, 64], DType::F16);
    for s in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        refused(&q, &q, &q, s, "softmax_scale");
    }
}

/// A dense call with options is refused with `needle` in the message.
fn refused_with(
    q: &Tensor,
    alibi: Option<&Tensor>,
    window: (Option<usize>, Option<usize>),
    softcap: f32,
    needle: &str,
) {
    let e = flash_attn_alibi_windowed_softcap(q, q, q, alibi, S, window.0, window.1, softcap)
        .expect_err("the call was accepted")
        .to_string();
    assert!(e.contains(needle), "expected '{needle}' in: {e}");
    assert!(e.starts_with("flashattn: "), "{e}");
}

#[test]
fn bad_alibi_slopes_and_softcaps_are_refused() {
    let q = zeros(&[1, 4, 3, 64], DType::BF16);
    let slopes = |shape: &[usize], dt: DType| zeros(shape, dt);
    refused_with(
        &q,
        Some(&slopes(&[3], DType::F16)),
        (None, None),
        0.0,
        "alibi_slopes has dtype F16",
    );
    refused_with(
        &q,
        Some(&slopes(&[4], DType::F32)),
        (None, None),
        0.0,
        "expected [3]",
    );
    refused_with(
        &q,
        Some(&slopes(&[1, 3], DType::F32)),
        (None, None),
        0.0,
        "expected [3]",
    );
    let strided = zeros(&[6], DType::F32)
        .reshape((3, 2))
        .unwrap()
        .narrow(1, 0, 1)
        .unwrap()
        .squeeze(1)
        .unwrap();
    refused_with(
        &q,
        Some(&strided),
        (None, None),
        0.0,
        "alibi_slopes is not contiguous",
    );
    for cap in [-1.0, f32::NAN, f32::INFINITY] {
        refused_with(&q, None, (Some(3), Some(0)), cap, "softcap");
    }
    // Good options get as far as the device.
    refused_with(
        &q,
        Some(&slopes(&[3], DType::F32)),
        (Some(3), Some(0)),
        30.0,
        "CUDA devices only",
    );
    let e = flash_attn_alibi(&q, &q, &q, &slopes(&[2], DType::F32), S, true).unwrap_err();
    assert!(e.to_string().contains("expected [3]"), "{e}");
    let e = flash_attn_windowed(&q, &q, &q, S, Some(1_000_000), None).unwrap_err();
    assert!(e.to_string().contains("CUDA devices only"), "{e}");
}

#[test]
fn bad_varlen_calls_are_refused() {
    let q = zeros(&[10, 4, 64], DType::F16);
    let kv = zeros(&[12, 2, 64], DType::F16);
    let offsets = |v: &[u32]| Tensor::new(v, &Device::Cpu).unwrap();
    let (cu_q, cu_k) = (offsets(&[0, 4, 10]), offsets(&[0, 5, 12]));
    let varlen =
        |q: &Tensor, kv: &Tensor, cu_q: &Tensor, cu_k: &Tensor, max_q: usize, max_k: usize| {
            flash_attn_varlen(q, kv, kv, cu_q, cu_k, max_q, max_k, S, true)
                .expect_err("the call was accepted")
                .to_string()
        };
    let refused = |e: String, needle: &str| {
        assert!(e.contains(needle), "expected '{needle}' in: {e}");
        assert!(e.starts_with("flashattn: "), "{e}");
    };
    refused(
        varlen(&zeros(&[1, 10, 4, 64], DType::F16), &kv, &cu_q, &cu_k, 6, 7),
        "rank 3",
    );
    refused(
        varlen(&q, &zeros(&[12, 3, 64], DType::F16), &cu_q, &cu_k, 6, 7),
        "not a multiple",
    );
    refused(
        varlen(&q, &kv, &zeros(&[3], DType::I64), &cu_k, 6, 7),
        "seqlens_q has dtype I64",
    );
    refused(
        varlen(&q, &kv, &cu_q, &zeros(&[3], DType::F32), 6, 7),
        "seqlens_k has dtype F32",
    );
    refused(
        varlen(&q, &kv, &offsets(&[0]), &offsets(&[0]), 6, 7),
        "batch >= 1",
    );
    refused(
        varlen(&q, &kv, &cu_q, &offsets(&[0, 12]), 6, 7),
        "both are [batch + 1]",
    );
    refused(varlen(&q, &kv, &cu_q, &cu_k, 0, 7), "seqlen_q is 0");
    refused(varlen(&q, &kv, &cu_q, &cu_k, 6, 0), "seqlen_k is 0");
    refused(
        varlen(&zeros(&[0, 4, 64], DType::F16), &kv, &cu_q, &cu_k, 6, 7),
        "total_q",
    );
    // i32 offsets are taken too; a well-formed call gets as far as the device.
    let cu_q32 = Tensor::new(&[0i32, 4, 10], &Device::Cpu).unwrap();
    refused(varlen(&q, &kv, &cu_q32, &cu_k, 6, 7), "CUDA devices only");
    let e = flash_attn_varlen_alibi_windowed_softcap(
        &q,
        &kv,
        &kv,
        None,
        &cu_q,
        &cu_k,
        6,
        7,
        S,
        Some(3),
        Some(0),
        -2.0,
    )
    .unwrap_err();
    refused(e.to_string(), "softcap");
}

#[test]
fn probing_for_a_gpu_without_one_is_an_error_not_a_panic() {
    // Here the stub libcuda from scripts/setup.sh answers every call with
    // CUDA_ERROR_STUB_LIBRARY; on a GPU host the device opens.
    match Device::new_cuda(0) {
        Ok(_) => eprintln!("a CUDA device is present"),
        Err(e) => eprintln!("no CUDA device: {e}"),
    }
}

/// The baseline of the GPU tests, checked on the CPU in f32 against the f64 reference, with
/// GQA, Sq != Sk and causal rows that see no key.
#[test]
fn plain_attention_matches_the_reference_on_the_cpu() {
    let mut seed = 0x9e3779b97f4a7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f32 / (1u64 << 53) as f32 * 4.0 - 2.0
    };
    for &(b, sq, sk, hq, hkv, d, causal) in &[
        (1, 7, 7, 2, 2, 32, false),
        (2, 9, 5, 4, 2, 16, true), // Sq > Sk: the first four rows see no key
        (1, 5, 13, 6, 1, 8, true),
        (2, 3, 11, 4, 4, 24, false),
    ] {
        let mut make = |s: usize, h: usize| -> (Vec<f32>, Tensor) {
            let data: Vec<f32> = (0..b * s * h * d).map(|_| next()).collect();
            let t = Tensor::from_vec(data.clone(), (b, s, h, d), &Device::Cpu).unwrap();
            (data, t)
        };
        let (qd, q) = make(sq, hq);
        let (kd, k) = make(sk, hkv);
        let (vd, v) = make(sk, hkv);
        let p = Problem::new(b, sq, sk, hq, hkv, d, causal);
        let got = plain_attention(&q, &k, &v, p.softmax_scale, causal).unwrap();
        assert_eq!(got.dims(), &[b, sq, hq, d]);
        let got: Vec<f64> = got
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect();
        let tq = TensorRef::new(&qd, Strides::bshd(sq, hq, d));
        let tk = TensorRef::new(&kd, Strides::bshd(sk, hkv, d));
        let tv = TensorRef::new(&vd, Strides::bshd(sk, hkv, d));
        let reference = flashattn_ref::reference(&p, tq, tk, tv);
        let naive = flashattn_ref::naive_same_precision(&p, tq, tk, tv);
        let c = flashattn_ref::check(&p, &got, None, &reference, &naive);
        assert!(c.pass, "{p:?}: {c}");
    }
}
