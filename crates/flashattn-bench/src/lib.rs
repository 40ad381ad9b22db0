//! Benchmarking support for flashattn-rs that needs no GPU: the report schema shared with the
//! PyTorch baseline, the shape suites, the statistics behind the performance-regression gate and
//! the A/B verdict over alternating runs, and the table/chart writers used by the
//! `flashattn-report` binary.
//!
//! The GPU-running harness (criterion benches and the measurement driver) builds on these types;
//! keeping them GPU-free lets CI compare reports and render tables on machines without CUDA.

pub mod ab;
pub mod compare;
pub mod gpu;
pub mod host;
pub mod output;
pub mod report;
pub mod stats;
pub mod suites;
