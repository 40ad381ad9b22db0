//! The kernel configurations that get compiled: one line per tile. This is the file to edit
//! when adding or retiring a configuration; the build script (crates/flashattn-sys/build/)
//! turns every line into an explicit template instantiation and a registry entry.

/// Head dims the kernels are written for; each needs at least one [`SM80_TILES`] line.
pub const ALL_HEAD_DIMS: &[u32] = &[32, 64, 96, 128, 256];

/// One tile configuration of the portable (sm_80+) kernel, compiled for every dtype.
pub struct Tile {
    pub head_dim: u32,
    pub block_m: u32,
    pub block_n: u32,
    pub warps: u32,
    pub stages: u32,
    /// Warp groups that split the key range inside the CTA (1: none).
    pub kv_splits: u32,
    /// The configuration used when the caller names none (one per head dim).
    pub is_default: bool,
    /// Also compile the softcap/ALiBi kernel of this tile (see [`with_score_mods`]).
    pub score_mods: bool,
}

const fn tile(
    head_dim: u32,
    block_m: u32,
    block_n: u32,
    warps: u32,
    stages: u32,
    is_default: bool,
) -> Tile {
    Tile {
        head_dim,
        block_m,
        block_n,
        warps,
        stages,
        kv_splits: 1,
        is_default,
        score_mods: false,
    }
}

/// A tile whose `kv_splits` warp groups each take every `kv_splits`-th key tile.
const fn split_tile(
    head_dim: u32,
    block_m: u32,
    block_n: u32,
    warps: u32,
    stages: u32,
    kv_splits: u32,
) -> Tile {
    Tile {
        kv_splits,
        ..tile(head_dim, block_m, block_n, warps, stages, false)
    }
}

/// The tile with its third kernel, the score-modifier (softcap and ALiBi) variant (every tile has
/// the dense and the general one: cuda-src/common/features.cuh). Each one adds to the build's
/// nvcc time, so not every tile has one: the default of each head dim,
/// the tiles the tuned dispatch table and the built-in rule pick for large and small problems,
/// and one short-sequence tile. A call with softcap or ALiBi runs only on these (the launch layer
/// and the fuzzer know); windows, the alignment and sinks run on every tile.
const fn with_score_mods(t: Tile) -> Tile {
    Tile {
        score_mods: true,
        ..t
    }
}

/// Every configuration that gets compiled. Why each one exists:
/// - 128-row tiles with 4 warps (two m16 slices per warp) are FlashAttention-2's shape: K/V
///   shared-memory reads are amortised over 32 rows per warp.
/// - 64-row tiles fill the GPU when batch x heads x seqlen is small (the S=512 family), and
///   keep head dim 256 inside the register file.
/// - 8-warp 128-row tiles trade shared-memory bandwidth for half the registers per thread.
/// - 2-stage K/V ring: the next tile's copy overlaps all of this tile's math; 1 stage is the
///   split schedule (V under Q.K^T, next K under softmax and P.V) for when smem is tight.
/// - Split-KV tiles (`kv` suffix) put 2-4 warp groups on one Q tile, each walking its share
///   of the keys: for short sequences (S=512 at small batch x heads) the plain tiles leave
///   most SMs or most warp slots idle, and these finish the key loop in 1/kv of the steps
///   with no second launch and no global workspace. One K/V buffer per group (stage 1) keeps
///   shared memory low enough for two or three CTAs per SM; two-stage split tiles measured
///   slower and spilled under the 128-register cap.
/// - The one-warp d64 tile is deliberately slow: the benchmark gate's negative control.
pub const SM80_TILES: &[Tile] = &[
    with_score_mods(tile(32, 128, 64, 4, 2, true)),
    with_score_mods(tile(32, 64, 64, 4, 2, false)),
    with_score_mods(tile(64, 128, 64, 4, 2, true)),
    tile(64, 128, 128, 4, 1, false),
    tile(64, 128, 128, 4, 2, false),
    tile(64, 128, 64, 8, 2, false),
    tile(64, 128, 128, 8, 2, false),
    with_score_mods(tile(64, 64, 64, 4, 2, false)),
    tile(64, 64, 64, 4, 1, false),
    with_score_mods(tile(64, 64, 128, 4, 2, false)),
    tile(64, 64, 128, 4, 1, false),
    tile(64, 16, 64, 1, 2, false),
    with_score_mods(split_tile(64, 32, 64, 8, 1, 4)),
    split_tile(64, 64, 64, 8, 1, 2),
    split_tile(64, 64, 64, 16, 1, 4),
    with_score_mods(tile(96, 128, 64, 4, 2, true)),
    with_score_mods(tile(96, 64, 64, 4, 2, false)),
    // 128-row 4-warp tiles sit at the 255-register edge for d128 (ptxas spills ~90 bytes);
    // the 8-warp tile of the same shape has no spills but twice the smem reads per FLOP.
    with_score_mods(tile(128, 128, 64, 4, 2, true)),
    tile(128, 128, 64, 4, 1, false),
    with_score_mods(tile(128, 128, 64, 8, 2, false)),
    tile(128, 128, 32, 4, 1, false),
    with_score_mods(tile(128, 64, 64, 4, 2, false)),
    tile(128, 64, 128, 4, 2, false),
    with_score_mods(split_tile(128, 32, 64, 8, 1, 4)),
    with_score_mods(tile(256, 64, 64, 4, 1, true)),
    tile(256, 64, 64, 4, 2, false),
    tile(256, 64, 32, 4, 2, false),
    with_score_mods(tile(256, 128, 64, 8, 1, false)),
];

/// One tile configuration of the Hopper (sm_90a) kernel: `warpgroups` x 64 query rows.
pub struct HopperTile {
    pub head_dim: u32,
    pub block_n: u32,
    pub warpgroups: u32,
    pub stages: u32,
    /// Also compile the softcap/ALiBi kernel of this tile (see [`with_score_mods`]).
    pub score_mods: bool,
    /// Compile the tile's dense kernel; without it dense calls run the general kernel (see
    /// [`hopper_dense_on_general`]).
    pub dense_variant: bool,
}

const fn hopper_tile(head_dim: u32, block_n: u32, warpgroups: u32, stages: u32) -> HopperTile {
    HopperTile {
        head_dim,
        block_n,
        warpgroups,
        stages,
        score_mods: false,
        dense_variant: true,
    }
}

/// A Hopper tile whose dense calls run its general kernel (cuda-src/common/features.cuh), for
/// the tiles where ptxas schedules the general kernel's key loop faster than the dense one's.
/// Measured on the lent H100 (2026-11-25, docs/benchmarks/2026-11-25-h100-variants.md): the
/// two-warpgroup head-dim-128 tile's dense kernel ran the long suite's dense D128 shapes
/// 4-7% slower than the general kernel's code did (the same in four runs, and whichever
/// build ran first), while every other tile's dense kernel was as fast or faster.
const fn hopper_dense_on_general(t: HopperTile) -> HopperTile {
    HopperTile {
        dense_variant: false,
        ..t
    }
}

/// A Hopper tile with its score-modifier kernel (the ones the tuned table picks, and the
/// one-warpgroup 64-key tile for short sequences).
const fn hopper_with_score_mods(t: HopperTile) -> HopperTile {
    HopperTile {
        score_mods: true,
        ..t
    }
}

/// Every Hopper configuration, compiled only when `90a` is among the target archs. Why each:
/// - one-warpgroup CTAs (64 rows) fill the GPU at short sequences and put two or three CTAs on
///   an SM, so one CTA's softmax runs under another's MMAs;
/// - two-warpgroup CTAs (128 rows) share each K/V tile between two warpgroups, halving the K/V
///   copies per query row for long sequences;
/// - 128-key tiles halve the loop trips and barriers, 64-key tiles halve shared memory (more
///   CTAs per SM);
/// - three buffers select the overlapped schedule (the next tile's Q.K^T under this tile's
///   softmax).
///
/// Split-KV tiles like the portable kernel's were tried (two warpgroups on one 64-row block,
/// alternate key tiles, merged through shared memory) and were slower on every seed shape, so
/// the short shapes' time is not the chain of key iterations; they are not compiled.
pub const SM90_TILES: &[HopperTile] = &[
    hopper_with_score_mods(hopper_tile(64, 64, 1, 2)),
    hopper_tile(64, 64, 1, 3),
    hopper_with_score_mods(hopper_tile(64, 128, 1, 2)),
    hopper_tile(64, 128, 1, 3),
    hopper_tile(64, 64, 2, 2),
    hopper_with_score_mods(hopper_tile(64, 128, 2, 2)),
    hopper_with_score_mods(hopper_tile(128, 64, 1, 2)),
    hopper_with_score_mods(hopper_tile(128, 64, 2, 2)),
    hopper_dense_on_general(hopper_with_score_mods(hopper_tile(128, 128, 2, 2))),
    // Head dim 96 (Phi-3's) takes head dim 128's tiles: its rows are two swizzle atoms, the
    // second half full, so shared memory is head dim 128's while Q.K^T takes six k16 steps and
    // P.V one N = 96 wgmma (cuda-src/sm90/traits.cuh).
    hopper_with_score_mods(hopper_tile(96, 64, 1, 2)),
    hopper_with_score_mods(hopper_tile(96, 64, 2, 2)),
    hopper_with_score_mods(hopper_tile(96, 128, 2, 2)),
    // Head dim 256: 128 O accumulators per thread leave room for 64 keys of S only (one CTA
    // per SM, no spills); P.V runs as two N = 128 halves.
    hopper_tile(256, 64, 1, 2),
    hopper_tile(256, 64, 1, 3),
    hopper_with_score_mods(hopper_tile(256, 64, 2, 2)),
];

/// One configuration of the warp-specialized Hopper kernel (cuda-src/sm90/ws_kernel.cuh): a
/// producer warpgroup that issues TMA copies and two or three consumer warpgroups of 64 query
/// rows each (128 or 192 rows per CTA, one CTA per SM), with all three variants (dense, general,
/// score modifiers). Calls whose strides a tensor map cannot describe run on its fallback, the
/// two-warpgroup [`SM90_TILES`] line of the same head dim and key width (64 keys where the width
/// is not a multiple of 64) with two stages, which must exist with its score-modifier kernel
/// (the build script checks).
pub struct WsTile {
    pub head_dim: u32,
    pub block_n: u32,
    /// Consumer warpgroups: 2, or 3 where S, P and O fit their 160 registers each (head dim 64
    /// at 128 keys, 96 at 96, 128 at 80).
    pub consumers: u32,
    pub stages: u32,
}

const fn ws_tile(head_dim: u32, block_n: u32, consumers: u32, stages: u32) -> WsTile {
    WsTile {
        head_dim,
        block_n,
        consumers,
        stages,
    }
}

/// Every warp-specialized configuration. The K/V ring's depth is the lever: with the loads
/// issued by a warpgroup that does nothing else, each extra buffer is one more key tile in
/// flight. Measured on the lent H100 against two buffers (2026-11-25,
/// docs/benchmarks/2026-11-25-h100-ws.md): head dim 128 with three buffers 4-20% faster at
/// S = 512-8192 (four do not fit beside Q); head dim 64 with four buffers 8-17% faster at
/// S >= 2048, three within 2% of four. Since K and V are released apart (2026-11-26,
/// docs/benchmarks/2026-11-26-h100-split-release.md) two buffers of wider key tiles do better
/// still: FlashAttention-3's widths, 176 keys at head dim 128 (88 S registers beside 64 of O;
/// 2-3% faster than three buffers of 128 keys on every long d128 shape) and 80 at head dim 256
/// (40 beside 128 of O; 7.6% faster than 64 keys at S = 8192). Key widths that are not a multiple
/// of 64 fall back to the 64-key tile of fwd_kernel.cuh of the head dim. Head dim 64 also has
/// FlashAttention-3's 192-row CTA: three consumer warpgroups, so each scheduler has three
/// computing warps to pick from instead of two (S, P and O of 128 keys fit their 160 registers).
/// Against the 128-row tile (2026-11-26, docs/benchmarks/2026-11-26-h100-ws-three-consumers.md):
/// 5-7% faster on every 4096-key shape, plain or masked; even at 1024 keys, whose sixth tile is
/// mostly padding; 1.2-1.6x slower on the 512-key seed shapes but B8 H16 (3% faster). Head dim
/// 128 has one too, 80 keys wide (64 of O, 40 of S and 20 of P; 96 keys spilled and ran 1.5x
/// slower, 64 keys with its persistent walk 3-12% slower from S = 2048 on): against the
/// dispatcher's 128-row tiles on the lent H100 (2026-11-28,
/// docs/benchmarks/2026-11-28-h100-d128-three-consumers.md) 2-3% faster at S = 4096 and 16384,
/// 3-5% on causal S = 4096 and the GQA causal shape, even at S = 2048 (0.96-1.01 over seven
/// pairs); 1.5-3% slower at S = 8192 (f16: 5%), 1-12% at 512-1024, where a 192-row tile pads the
/// rows by a ninth. The table and the dispatcher's padding rule decide.
pub const SM90_WS_TILES: &[WsTile] = &[
    ws_tile(64, 128, 2, 4),
    ws_tile(64, 128, 3, 4),
    ws_tile(128, 128, 2, 3),
    ws_tile(128, 176, 2, 2),
    ws_tile(128, 80, 3, 4),
    // Head dim 96: head dim 128's tiles (the same shared memory; 16 fewer O registers), and a
    // 192-row one 96 keys wide, which those 16 registers make room for in three consumers (S, P
    // and O 120 of 160; three buffers fit beside the 192-row Q): against the 80-key tile on the
    // lent H200 (docs/benchmarks/2026-11-30-h200-head-dim-96.md) 2.6-3.8% faster at S = 4096,
    // plain and causal, 1.4-2% at 1024, 0.2-2.6% at 2048.
    ws_tile(96, 128, 2, 3),
    ws_tile(96, 176, 2, 2),
    ws_tile(96, 80, 3, 4),
    ws_tile(96, 96, 3, 3),
    ws_tile(256, 64, 2, 2),
    ws_tile(256, 80, 2, 2),
];
