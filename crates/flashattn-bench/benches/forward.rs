//! criterion benches of the forward kernel: GPU time from CUDA events (criterion's
//! `iter_custom`), hot-L2, cold-L2 (rotating input sets over twice the L2) and CUDA-graph replay.
//! Without a GPU they print one line and measure nothing.
//!
//! `cargo bench -p flashattn-bench --bench forward -- [filter]`; FLASHATTN_BENCH_SUITE picks the
//! suite (default `seed`).

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use flashattn::KernelChoice;
use flashattn_bench::gpu::{Gpu, Protocol};
use flashattn_bench::report::{MODE_COLD, MODE_EVENTS, MODE_GRAPH};
use flashattn_bench::suites::suite;

fn forward(c: &mut Criterion) {
    let gpu =
        Gpu::open(0).inspect_err(|e| println!("forward benches skipped: no usable GPU ({e})"));
    let Ok(gpu) = gpu else { return };
    let name = std::env::var("FLASHATTN_BENCH_SUITE").unwrap_or_else(|_| "seed".into());
    let shapes = suite(&name).unwrap_or_else(|| panic!("unknown suite {name}"));
    let mut group = c.benchmark_group(format!("forward/{name}"));
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for shape in &shapes {
        group.throughput(Throughput::Elements(shape.flops() as u64));
        for mode in [MODE_EVENTS, MODE_COLD, MODE_GRAPH] {
            let w = gpu.workload(shape, KernelChoice::Auto, mode == MODE_COLD);
            let Ok(mut w) = w.inspect_err(|e| println!("{}: {e}", shape.key())) else {
                continue;
            };
            group.bench_function(BenchmarkId::new(mode, shape.key()), |b| {
                b.iter_custom(|iters| {
                    // One sample of `iters` calls: the sum of per-call GPU times.
                    let calls = iters as usize;
                    let (n, per) = if mode == MODE_GRAPH {
                        (calls.div_ceil(20), 20)
                    } else {
                        (calls, 1)
                    };
                    let proto = Protocol {
                        iters: n,
                        warmup: 1,
                        graph_calls: per,
                        ..Protocol::default()
                    };
                    let ms: f64 = gpu
                        .time(&mut w, mode, &proto)
                        .expect("timed launch")
                        .iter()
                        .map(|x| x * per as f64)
                        .sum();
                    Duration::from_secs_f64(ms * 1e-3 * calls as f64 / (n * per) as f64)
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, forward);
criterion_main!(benches);
