// Call FR's failing case on the CPU (thirty-fifth session): the f64 reference, the naive
// yardstick, and our kernel's arithmetic emulated with the scores' dot products summed per
// k-step of 16 products either exactly (one rounding) or aligned to the largest term and
// truncated to KEEP bits, as matrix units do. Not compiled: to run it, append it to
// fuzz/src/harness.rs (it uses the harness's private input generator) and
//   cargo test --release -p flashattn-fuzz --lib scratch_fr -- --ignored --nocapture
#[cfg(test)]
mod scratch_fr {
    use super::*;

    fn tc_dot(q: &[f16], k: &[f16], keep_bits: i32) -> f32 {
        let mut acc = 0f32;
        for step in 0..q.len() / 16 {
            let terms: Vec<f64> = (0..16)
                .map(|x| q[step * 16 + x].to_f64() * k[step * 16 + x].to_f64())
                .collect();
            if keep_bits == 0 {
                acc = (acc as f64 + terms.iter().sum::<f64>()) as f32;
                continue;
            }
            let mut emax = (acc as f64).abs();
            for t in &terms {
                emax = emax.max(t.abs());
            }
            if emax == 0.0 {
                continue;
            }
            let e = emax.log2().floor() as i32;
            let quantum = 2f64.powi(e - keep_bits + 1);
            let trunc = |x: f64| (x / quantum).trunc() * quantum;
            let sum: f64 = trunc(acc as f64) + terms.iter().map(|&t| trunc(t)).sum::<f64>();
            acc = sum as f32;
        }
        acc
    }

    #[test]
    #[ignore = "scratch"]
    fn fr_case() {
        let (b, sq, sk, h, d) = (2usize, 414usize, 194usize, 6usize, 256usize);
        let mut params = AttentionParams::new(b, sq, sk, h, d);
        params.softmax_scale = Some(1.8894372);
        let mut case = Case::new(DType::F16, params, 14545577712631101961);
        case.inputs = Inputs::Normal { std: 30.0 };
        case.with_lse = false;
        case.alibi = Some(HeadVector::Geometric { first: 0.25, ratio: 0.25 });
        let p = &case.params;
        let s_q = Layout::Bshd.strides(sq, h, d);
        let s_k = Layout::Bshd.strides(sk, h, d);
        let mut rng = StdRng::seed_from_u64(case.seed);
        let q = make_input::<f16>(&mut rng, s_q, [b, sq, h, d], case.inputs, Role::Query);
        let k = make_input::<f16>(&mut rng, s_k, [b, sk, h, d], case.inputs, Role::Key);
        let v = make_input::<f16>(&mut rng, s_k, [b, sk, h, d], case.inputs, Role::Value);
        let slopes = case.alibi.map(|a| a.values(h)).unwrap();
        let problem = reference_problem(p);
        let heads = reference::HeadParams { alibi_slopes: Some(&slopes), sinks: None };
        let want = reference::reference_with(&problem, r(&q, s_q), r(&k, s_k), r(&v, s_k), heads);
        let naive = reference::naive_same_precision_with(&problem, r(&q, s_q), r(&k, s_k), r(&v, s_k), heads);
        let idx = |bi: usize, si: usize, hi: usize| ((bi * sq + si) * h + hi) * d;
        let kidx = |bi: usize, si: usize, hi: usize| ((bi * sk + si) * h + hi) * d;
        let err = |o: &[f64]| {
            let mut worst = (0f64, 0usize);
            for (n, (&a, &w)) in o.iter().zip(&want.o).enumerate() {
                if (a - w).abs() > worst.0 {
                    worst = ((a - w).abs(), n);
                }
            }
            worst
        };
        let (ne, nn) = err(&naive.o);
        println!("naive: max err {ne:.4} at #{nn} (row {}, head {})", (nn / d / h) % sq, (nn / d) % h);
        const LOG2E: f32 = std::f32::consts::LOG2_E;
        let scale = 1.8894372f32;
        let factor = scale * LOG2E;
        for keep in [0, 24, 25, 26, 28] {
            let mut o = vec![0f64; want.o.len()];
            for bi in 0..b {
                for hi in 0..h {
                    let slope = -slopes[hi] * LOG2E / factor;
                    for i in 0..sq {
                        let qi = &q[idx(bi, i, hi)..idx(bi, i, hi) + d];
                        let x: Vec<f32> = (0..sk)
                            .map(|j| {
                                let s = tc_dot(qi, &k[kidx(bi, j, hi)..kidx(bi, j, hi) + d], keep);
                                let dist = (j as f32) - (i as f32) - ((sk as f32) - (sq as f32));
                                dist.abs().mul_add(slope, s)
                            })
                            .collect();
                        let m = x.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
                        let mf = m * factor;
                        let pj: Vec<f32> = x.iter().map(|&xj| (xj.mul_add(factor, -mf) as f64).exp2() as f32).collect();
                        let l: f32 = pj.iter().sum();
                        for c in 0..d {
                            let mut acc = 0f32;
                            for j in 0..sk {
                                let pr = f16::from_f32(pj[j]).to_f32();
                                acc += pr * v[kidx(bi, j, hi) + c].to_f32();
                            }
                            o[idx(bi, i, hi) + c] = f16::from_f32(acc / l).to_f64();
                        }
                    }
                }
            }
            let (e, n) = err(&o);
            println!("ours emulated (keep {keep} bits per k-step; 0 = exact sum, one rounding): max err {e:.4} at #{n} (row {}, head {})", (n / d / h) % sq, (n / d) % h);
        }
    }
}
