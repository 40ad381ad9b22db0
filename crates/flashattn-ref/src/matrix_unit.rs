//! The f32 sums of NVIDIA's matrix units, for 16-bit inputs.
//!
//! A framework's `Q K^T` in f16 or bf16 is a GEMM on the tensor cores, and they do not sum as
//! f32 arithmetic does. Measured bit for bit on an H200, for both `mma.sync` (m16n8k16) and
//! `wgmma` (m64nNk16), f16 and bf16, on random inputs over 25 (f16) or 61 (bf16) binades, with
//! and without mixed signs, and f16 inputs a third subnormal (docs/benchmarks/2026-11-28-h200-accumulation.md:
//! every one of 875,520 outputs): each k-step of 16 products and the running f32
//! accumulator are aligned to the largest exponent among them, a product counting as the sum of
//! its inputs' exponents (before normalizing, so it may carry one more integer bit; a subnormal
//! input counts as the format's smallest normal exponent); every term is truncated toward zero to
//! a multiple of 2^(E - 25), the terms are summed exactly, and the sum is truncated toward zero to
//! f32. Against f32 arithmetic that loses up to about 2^-24 of the largest term per step, always
//! toward zero, where a rounded sequential sum loses half as much with random sign.
//!
//! That difference only shows where the naive keeps its scores in f32 (logits beyond the input
//! type's range); elsewhere rounding the scores to the input type dominates.

/// A matrix unit's 16-bit input format: where its subnormals start matters to the alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    F16,
    Bf16,
}

impl Input {
    /// The exponent of the format's smallest normal value; subnormals align as if they had it.
    pub const fn min_exponent(self) -> i32 {
        match self {
            Input::F16 => -14,
            Input::Bf16 => -126,
        }
    }
}

/// Products per k-step of the matrix units' 16-bit MMAs.
const K_STEP: usize = 16;
/// Fraction bits kept below the step's largest exponent.
const KEPT_BITS: i32 = 25;

/// The dot product of two vectors of `input` values (given as f32, exactly) as a matrix unit
/// computes it with an f32 accumulator starting at zero. A length that is not a multiple of 16
/// is summed as if padded with zeros, as a kernel's tile is.
pub fn dot(input: Input, a: &[f32], b: &[f32]) -> f32 {
    dot_accumulate(input, 0.0, a, b)
}

/// `acc + a . b` as a matrix unit computes it: [`dot()`] with the accumulator starting at
/// `acc` (an MMA's C operand).
pub fn dot_accumulate(input: Input, acc: f32, a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    a.chunks(K_STEP)
        .zip(b.chunks(K_STEP))
        .fold(acc, |acc, (a16, b16)| step(input, acc, a16, b16))
}

/// One k-step: `acc + sum(a[k] * b[k])` for up to 16 terms.
fn step(input: Input, acc: f32, a: &[f32], b: &[f32]) -> f32 {
    let aligned = |x: f32| exponent(x).max(input.min_exponent());
    let mut products = [0.0f64; K_STEP];
    let mut largest = if acc == 0.0 { i32::MIN } else { exponent(acc) };
    for ((p, &x), &y) in products.iter_mut().zip(a).zip(b) {
        // Exact: 16-bit significands multiply into at most 22 bits.
        *p = f64::from(x) * f64::from(y);
        if *p != 0.0 {
            largest = largest.max(aligned(x) + aligned(y));
        }
    }
    if largest == i32::MIN {
        return acc;
    }
    // In units of the quantum every term is below 2^27 (a product's significand below 4), so
    // `as i32` is the truncation toward zero, and the sum of 17 of them is exact in i64.
    let quantum = largest - KEPT_BITS;
    let to_units = power_of_two(-quantum);
    let mut units = (f64::from(acc) * to_units) as i32 as i64;
    for p in products {
        units += (p * to_units) as i32 as i64;
    }
    f32_toward_zero(units as f64 * power_of_two(quantum))
}

/// The exponent field of an f32, unbiased (a subnormal's reads as -127).
fn exponent(x: f32) -> i32 {
    ((x.to_bits() >> 23) & 0xff) as i32 - 127
}

/// 2^e as an f64, for the exponents a step can produce (|e| well below 1000).
fn power_of_two(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// An exact f64 truncated toward zero to f32; beyond f32's range, infinity (what the units
/// give there was not measured; a score of f16 inputs stays below 2^41).
fn f32_toward_zero(x: f64) -> f32 {
    let y = x as f32;
    if y.is_infinite() || f64::from(y).abs() <= x.abs() {
        y
    } else {
        f32::from_bits(y.to_bits() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_sums_are_unchanged() {
        let a: Vec<f32> = (0..40).map(|i| (i % 7) as f32 - 3.0).collect();
        let b: Vec<f32> = (0..40).map(|i| (i % 5) as f32 * 0.5).collect();
        let want: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert_eq!(dot(Input::F16, &a, &b), want);
    }

    #[test]
    fn small_terms_are_cut_below_the_largest_exponent() {
        // 16 * 16 aligns the step at E = 8, quantum 2^-17: each 3 * 2^-18 is cut to 2^-17, so
        // eight of them add 2^-14 where their exact sum would add 3 * 2^-15.
        let mut a = [0.0f32; 16];
        let b = [1.0f32; 16];
        a[0] = 256.0;
        a[1..9].fill(3.0 * 2f32.powi(-18));
        assert_eq!(dot(Input::F16, &a, &b), 256.0 + 2f32.powi(-14));
    }

    #[test]
    fn a_product_aligns_by_its_inputs_exponents() {
        // 1.5 * 1.5 = 2.25 has exponent 1 but aligns as 0 + 0, quantum 2^-25: fifteen terms of
        // 3 * 2^-26 keep 2^-25 each and add one f32 ulp of 2.25; aligned at exponent 1 (quantum
        // 2^-24) each would be cut to nothing.
        let mut a = [3.0 * 2f32.powi(-26); 16];
        let mut b = [1.0f32; 16];
        (a[0], b[0]) = (1.5, 1.5);
        assert_eq!(dot(Input::F16, &a, &b), 2.25 + 2f32.powi(-22));
    }

    #[test]
    fn sums_truncate_toward_zero() {
        // 1 + 2^-24 + 2^-25 is between f32 neighbours of 1; rounding would give 1 + 2^-23.
        let a = [1.0f32, 2f32.powi(-24), 2f32.powi(-25)];
        let b = [1.0f32, 1.0, 1.0];
        assert_eq!(dot(Input::F16, &a, &b), 1.0);
        let negated: Vec<f32> = a.iter().map(|x| -x).collect();
        assert_eq!(dot(Input::F16, &negated, &b), -1.0);
    }

    #[test]
    fn a_subnormal_input_aligns_at_the_smallest_normal_exponent() {
        // 2^-20, 2^-16 and 2^-24 are f16 subnormals, each aligned as 2^-14: the step is aligned
        // at -14 + 0 (quantum 2^-39), so 2^-16 * 2^-24 = 2^-40 is cut. As bf16 values they are
        // normal, the step is aligned at -20 (quantum 2^-45) and 2^-40 is kept.
        let a = [2f32.powi(-20), 2f32.powi(-16)];
        let b = [1.0f32, 2f32.powi(-24)];
        assert_eq!(dot(Input::F16, &a, &b), 2f32.powi(-20));
        assert_eq!(dot(Input::Bf16, &a, &b), 2f32.powi(-20) + 2f32.powi(-40));
    }

    #[test]
    fn each_step_is_truncated_to_f32() {
        // 1 + 2^-24 is not an f32: each step truncates it to 1, where one sum of all three
        // terms would be 1 + 2^-23.
        let mut a = vec![0.0f32; 32];
        let b = vec![1.0f32; 32];
        a[0] = 1.0;
        a[1] = 2f32.powi(-24);
        a[16] = 2f32.powi(-24);
        assert_eq!(dot(Input::F16, &a, &b), 1.0);
    }
}
