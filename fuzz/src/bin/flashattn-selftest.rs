//! The README's main job: on a GPU, a short correctness and timing report for a few shapes;
//! without one, a one-line notice and the CPU reference on a small problem (exit 0).

use std::time::Instant;

use clap::Parser;
use flashattn::{AttentionParams, DType, LaunchInfo, Strides, Tensor, TensorMut};
use flashattn_fuzz::harness::{Case, TestElement, run_case};
use half::{bf16, f16};

/// On a GPU, a correctness check and the median time of a few shapes; without one, a notice
/// and the CPU reference on a small problem.
#[derive(Parser)]
#[command(
    name = "flashattn-selftest",
    after_help = "Exit status: 0 every check passed, or no GPU; 1 a correctness check failed; 2 bad arguments."
)]
struct Cli {}

fn main() {
    Cli::parse();
    let stream = match flashattn_fuzz::harness::gpu_stream() {
        Ok(s) => s,
        Err(e) => {
            println!("no usable GPU ({e}); running the CPU reference on a small problem instead");
            cpu_only();
            return;
        }
    };
    let ctx = stream.context();
    println!(
        "device: {} (sm_{}{}), kernels built for {}",
        ctx.name().unwrap_or_default(),
        ctx.compute_capability().map(|c| c.0).unwrap_or(0),
        ctx.compute_capability().map(|c| c.1).unwrap_or(0),
        flashattn_sys_archs()
    );
    println!(
        "{:<44} {:>10} {:>9} {:>10} {:>9}  kernel (schedule) of the timed call",
        "shape", "err/bound", "check", "p50 ms", "TFLOP/s"
    );
    let shapes: &[(DType, usize, usize, usize, usize, bool)] = &[
        (DType::F16, 4, 16, 512, 64, false),
        (DType::F16, 4, 16, 512, 64, true),
        (DType::BF16, 4, 16, 2048, 128, false),
        (DType::BF16, 2, 16, 4096, 128, true),
    ];
    let mut all_pass = true;
    for &(dtype, b, h, s, d, causal) in shapes {
        let params = AttentionParams {
            causal,
            ..AttentionParams::new(b, s, s, h, d)
        };
        // Correctness on a slice of the problem (the CPU reference is the slow part).
        let check_params = AttentionParams {
            batch: 1,
            heads_q: 2,
            heads_kv: 2,
            ..params.clone()
        };
        let outcome = run_case(&stream, &Case::new(dtype, check_params, 42)).expect("launch");
        all_pass &= outcome.check.pass;
        let (p50, tflops, ran) = match dtype {
            DType::F16 => time_forward::<f16>(&stream, &params),
            DType::BF16 => time_forward::<bf16>(&stream, &params),
        }
        .expect("timing launch");
        println!(
            "{:<44} {:>10.3} {:>9} {:>10.4} {:>9.1}  {} ({})",
            format!(
                "{dtype} B{b} H{h} S{s} D{d}{}",
                if causal { " causal" } else { "" }
            ),
            outcome.check.ratio,
            if outcome.check.pass { "pass" } else { "FAIL" },
            p50,
            tflops,
            ran.config.name,
            ran.schedule
        );
    }
    if !all_pass {
        std::process::exit(1);
    }
}

fn flashattn_sys_archs() -> String {
    flashattn::kernel_configs()
        .first()
        .map_or("nothing".into(), |_| {
            format!("{} configurations", flashattn::kernel_configs().len())
        })
}

/// Median per-call time over 50 back-to-back launches of `p` in `T`, with CUDA events, its
/// TFLOP/s, and what the last launch ran.
fn time_forward<T: TestElement>(
    stream: &std::sync::Arc<cudarc::driver::CudaStream>,
    p: &AttentionParams,
) -> Result<(f64, f64, LaunchInfo), flashattn::Error> {
    let n = p.batch * p.seqlen_q * p.heads_q * p.head_dim;
    let host: Vec<T> = (0..n)
        .map(|i| T::from_f64(((i * 2654435761) % 1000) as f64 / 500.0 - 1.0))
        .collect();
    let q = stream.clone_htod(&host)?;
    let k = stream.clone_htod(&host)?;
    let v = stream.clone_htod(&host)?;
    let mut o = stream.alloc_zeros::<T>(n)?;
    let s = Strides::bshd(p.seqlen_q, p.heads_q, p.head_dim);
    let mut launch = || {
        flashattn::forward(
            stream,
            p,
            Tensor::new(&q, s),
            Tensor::new(&k, s),
            Tensor::new(&v, s),
            TensorMut::new(&mut o, s),
            None,
        )
    };
    let mut ran = launch()?;
    for _ in 0..4 {
        launch()?;
    }
    let mut times = Vec::new();
    for _ in 0..50 {
        let start =
            stream.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
        ran = launch()?;
        let end =
            stream.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
        end.synchronize()?;
        times.push(start.elapsed_ms(&end)? as f64);
    }
    times.sort_by(f64::total_cmp);
    let p50 = times[times.len() / 2];
    let problem = flashattn_ref::Problem::new(
        p.batch, p.seqlen_q, p.seqlen_k, p.heads_q, p.heads_kv, p.head_dim, p.causal,
    );
    Ok((p50, problem.flops() / (p50 * 1e-3) / 1e12, ran))
}

fn cpu_only() {
    let p = flashattn_ref::Problem::new(1, 64, 96, 4, 2, 64, true);
    let s = |n, h| flashattn_ref::Strides::bshd(n, h, 64);
    let data = |len: usize, seed: usize| -> Vec<f32> {
        (0..len)
            .map(|i| (((i + seed) * 2654435761usize) % 2000) as f32 / 1000.0 - 1.0)
            .collect()
    };
    let (q, k, v) = (
        data(64 * 4 * 64, 1),
        data(96 * 2 * 64, 2),
        data(96 * 2 * 64, 3),
    );
    let t = Instant::now();
    use flashattn_ref::TensorRef;
    let out = flashattn_ref::reference(
        &p,
        TensorRef::new(&q, s(64, 4)),
        TensorRef::new(&k, s(96, 2)),
        TensorRef::new(&v, s(96, 2)),
    );
    println!(
        "CPU reference: B1 Sq64 Sk96 Hq4 Hkv2 D64 causal in {:.1} ms; O[0..4] = {:?}; LSE[0] = {:.4}",
        t.elapsed().as_secs_f64() * 1e3,
        &out.o[..4]
            .iter()
            .map(|x| (x * 1e4).round() / 1e4)
            .collect::<Vec<_>>(),
        out.lse[0]
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_no_arguments() {
        let e = Cli::try_parse_from(["flashattn-selftest", "--bogus"])
            .err()
            .expect("rejected");
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("--bogus"), "{e}");
    }
}
