//! Merging two partial attention results over disjoint key sets, in f64: the ground truth for
//! the GPU merge, and (through [`crate::reference`] on the parts) a check of the identity it
//! rests on.

use crate::Output;

/// `O = e^{L_a - L} O_a + e^{L_b - L} O_b`, `L = ln(e^{L_a} + e^{L_b})` row by row, for
/// outputs in canonical form ([`Output`]: O `[B, S, H, D]`, LSE `[B, H, S]`) with the same
/// shape. A row whose LSE is -inf in one part takes the other part as it is; -inf in both
/// gives O = 0, LSE = -inf.
///
/// # Panics
/// If the two outputs differ in shape, if O is not `batch * seqlen * heads * head_dim` long, or
/// if LSE is shorter than `batch * heads * seqlen`.
pub fn merge(
    a: &Output,
    b: &Output,
    batch: usize,
    seqlen: usize,
    heads: usize,
    head_dim: usize,
) -> Output {
    assert_eq!(
        (a.o.len(), a.lse.len()),
        (b.o.len(), b.lse.len()),
        "parts of different shapes"
    );
    assert_eq!(a.o.len(), batch * seqlen * heads * head_dim);
    let mut out = Output {
        o: vec![0.0; a.o.len()],
        lse: vec![0.0; a.lse.len()],
    };
    for bi in 0..batch {
        for s in 0..seqlen {
            for h in 0..heads {
                let l = (bi * heads + h) * seqlen + s;
                let (la, lb) = (a.lse[l], b.lse[l]);
                let m = la.max(lb);
                let o0 = ((bi * seqlen + s) * heads + h) * head_dim;
                if m == f64::NEG_INFINITY {
                    out.lse[l] = f64::NEG_INFINITY;
                    continue;
                }
                let (ea, eb) = ((la - m).exp(), (lb - m).exp());
                let total = ea + eb;
                out.lse[l] = m + total.ln();
                for d in 0..head_dim {
                    let part = |w: f64, x: f64| if w == 0.0 { 0.0 } else { w / total * x };
                    out.o[o0 + d] = part(ea, a.o[o0 + d]) + part(eb, b.o[o0 + d]);
                }
            }
        }
    }
    out
}
