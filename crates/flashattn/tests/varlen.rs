//! Every refusal of a variable-length call, decided on the host without a GPU: the launch's
//! checks (validate_varlen) and the complete check of host copies (check_varlen_seqlens).

use flashattn::{
    AttentionParams, DType, Error, RawForward, RawLse, RawTensor, RawVarlen, Strides,
    check_varlen_seqlens, validate_varlen,
};

const D: usize = 64;
const MB: u64 = 1 << 20;

/// Three sequences (query lengths 5, 0, 11; key lengths 7, 3, 11), 4 query heads on 2 KV heads,
/// every buffer disjoint and aligned. The packed tensors carry a nonsense batch stride, which a
/// varlen call ignores.
fn good() -> (AttentionParams, RawForward, RawVarlen) {
    let p = AttentionParams::new(3, 11, 11, 4, D);
    let p = AttentionParams { heads_kv: 2, ..p };
    let (total_q, total_k) = (16, 21);
    let tensor = |ptr, rows: usize, heads: usize| RawTensor {
        ptr,
        len: rows * heads * D,
        dtype: DType::F16,
        strides: Strides {
            batch: -3,
            ..Strides::packed(heads, D)
        },
    };
    let t = RawForward::new(
        tensor(MB, total_q, 4),
        tensor(2 * MB, total_k, 2),
        tensor(3 * MB, total_k, 2),
        tensor(4 * MB, total_q, 4),
        Some(RawLse {
            ptr: 5 * MB,
            len: 4 * total_q,
        }),
    );
    let vl = RawVarlen {
        cu_seqlens_q: (6 * MB, 4),
        cu_seqlens_k: (6 * MB + 64, 4),
        seqused_k: Some((6 * MB + 128, 3)),
        total_q,
        total_k,
    };
    (p, t, vl)
}

#[test]
fn a_packed_call_is_sized_by_its_totals() {
    let (p, t, vl) = good();
    assert!(validate_varlen(&p, &t, &vl).is_ok());
    assert!(
        validate_varlen(
            &p,
            &t,
            &RawVarlen {
                seqused_k: None,
                ..vl
            }
        )
        .is_ok()
    );
    // The dense reading of the same buffers needs batch x max_seqlen rows and a sane batch
    // stride: refused, so the varlen sizes really are the ones checked.
    assert!(flashattn::validate(&p, &t).is_err());
    // One row short in q, o, k or v, or one LSE value short.
    for which in ["q", "k", "v", "o", "lse"] {
        let mut t = t;
        match which {
            "q" => t.q.len -= 1,
            "k" => t.k.len -= 1,
            "v" => t.v.len -= 1,
            "o" => t.o.len -= 1,
            _ => t.lse.as_mut().unwrap().len -= 1,
        }
        match validate_varlen(&p, &t, &vl) {
            Err(Error::SliceTooShort { tensor, .. }) => assert_eq!(tensor, which),
            other => panic!("{which}: {other:?}"),
        }
    }
    // Row strides still have to be 16-byte multiples.
    let mut odd = t;
    odd.k.strides.row += 4;
    odd.k.len *= 2;
    assert!(matches!(
        validate_varlen(&p, &odd, &vl),
        Err(Error::Misaligned { tensor: "k", .. })
    ));
}

#[test]
fn sequence_vectors_are_checked_for_length_alignment_and_overlap() {
    let (p, t, vl) = good();
    let cases = [
        (
            RawVarlen {
                cu_seqlens_q: (6 * MB, 3),
                ..vl
            },
            "cu_seqlens_q",
            4,
        ),
        (
            RawVarlen {
                cu_seqlens_k: (6 * MB + 64, 5),
                ..vl
            },
            "cu_seqlens_k",
            4,
        ),
        (
            RawVarlen {
                seqused_k: Some((6 * MB + 128, 4)),
                ..vl
            },
            "seqused_k",
            3,
        ),
    ];
    for (bad, which, want) in cases {
        match validate_varlen(&p, &t, &bad) {
            Err(Error::SeqlensLength {
                input,
                expected,
                batch,
                ..
            }) => assert_eq!((input, expected, batch), (which, want, 3)),
            other => panic!("{which}: {other:?}"),
        }
    }
    let misaligned = RawVarlen {
        seqused_k: Some((6 * MB + 130, 3)),
        ..vl
    };
    assert!(matches!(
        validate_varlen(&p, &t, &misaligned),
        Err(Error::Misaligned {
            tensor: "seqused_k",
            ..
        })
    ));
    // The output over the key prefix sums: the kernel would read what other CTAs write.
    let under_o = RawVarlen {
        cu_seqlens_k: (4 * MB + 256, 4),
        ..vl
    };
    match validate_varlen(&p, &t, &under_o) {
        Err(Error::Aliasing { output, other }) => {
            assert_eq!((output, other), ("o", "cu_seqlens_k"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn totals_and_max_lengths_must_be_positive_and_bounded() {
    let (p, t, vl) = good();
    for (bad, what) in [
        (RawVarlen { total_q: 0, ..vl }, "total_q"),
        (RawVarlen { total_k: 0, ..vl }, "total_k"),
    ] {
        assert!(matches!(
            validate_varlen(&p, &t, &bad),
            Err(Error::ZeroSize { what: w }) if w == what
        ));
    }
    let huge = RawVarlen {
        total_k: flashattn::MAX_SEQLEN + 1,
        ..vl
    };
    assert!(matches!(
        validate_varlen(&p, &t, &huge),
        Err(Error::TooLarge {
            what: "total_k",
            ..
        })
    ));
    let no_max = AttentionParams {
        seqlen_k: 0,
        ..p.clone()
    };
    assert!(matches!(
        validate_varlen(&no_max, &t, &vl),
        Err(Error::ZeroSize { what: "seqlen_k" })
    ));
}

#[test]
fn host_copies_of_the_sequence_vectors_are_checked_completely() {
    let (p, _, vl) = good();
    let (cu_q, cu_k, used) = ([0, 5, 5, 16], [0, 7, 10, 21], [7, 0, 9]);
    let check = |q: &[i32], k: &[i32], u: Option<&[i32]>| {
        check_varlen_seqlens(&p, q, k, u, vl.total_q, vl.total_k)
    };
    assert!(check(&cu_q, &cu_k, Some(&used)).is_ok());
    assert!(check(&cu_q, &cu_k, None).is_ok());
    let contents = |r: flashattn::Result<()>| match r {
        Err(Error::SeqlensContents {
            input, sequence, ..
        }) => (input, sequence),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        contents(check(&[1, 5, 5, 16], &cu_k, None)),
        ("cu_seqlens_q", 0)
    );
    assert_eq!(
        contents(check(&cu_q, &[0, 7, 6, 21], None)),
        ("cu_seqlens_k", 1)
    );
    assert_eq!(
        contents(check(&[0, 5, 5, 15], &cu_k, None)),
        ("cu_seqlens_q", 3)
    );
    // Sequence 2 has 12 queries, above max_seqlen_q = 11.
    assert_eq!(
        contents(check(&[0, 4, 4, 16], &cu_k, None)),
        ("cu_seqlens_q", 2)
    );
    assert_eq!(
        contents(check(&cu_q, &cu_k, Some(&[7, 4, 9]))),
        ("seqused_k", 1)
    );
    assert_eq!(
        contents(check(&cu_q, &cu_k, Some(&[-1, 0, 9]))),
        ("seqused_k", 0)
    );
    assert!(matches!(
        check(&cu_q[..3], &cu_k, None),
        Err(Error::SeqlensLength {
            input: "cu_seqlens_q",
            len: 3,
            ..
        })
    ));
    assert!(matches!(
        check(&cu_q, &cu_k, Some(&used[..2])),
        Err(Error::SeqlensLength {
            input: "seqused_k",
            ..
        })
    ));
}

/// A batch of usize::MAX sequences has no `batch + 1`: every length is refused, and nothing is
/// indexed or overflowed on the way.
#[test]
fn a_batch_no_slice_can_describe_is_refused_without_overflow() {
    let p = AttentionParams::new(usize::MAX, 11, 11, 4, D);
    for cu in [&[][..], &[0], &[0, 5]] {
        match check_varlen_seqlens(&p, cu, cu, Some(cu), 0, 0) {
            Err(Error::SeqlensLength {
                input: "cu_seqlens_q",
                len,
                batch: usize::MAX,
                expected: usize::MAX,
            }) => assert_eq!(len, cu.len()),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn packed_strides_are_the_contiguous_token_layout() {
    let s = Strides::packed(8, 128);
    assert_eq!((s.row, s.head), (8 * 128, 128));
    assert_eq!(
        (s.row, s.head),
        (Strides::bshd(5, 8, 128).row, Strides::bshd(5, 8, 128).head)
    );
}
