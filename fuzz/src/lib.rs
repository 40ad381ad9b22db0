//! Correctness tooling for flashattn-rs: a harness that runs one case on the GPU and judges it
//! against the CPU reference ([`harness`]), and a property-based fuzzer over random shapes
//! ([`strategies`], the `flashattn-fuzz` binary), and the same for packed variable-length
//! batches ([`varlen`]); per-feature accuracy next to PyTorch SDPA ([`accuracy`]); a printed
//! case read back for a rerun ([`reproducer`]).

pub mod accuracy;
pub mod harness;
pub mod reproducer;
pub mod strategies;
pub mod varlen;
