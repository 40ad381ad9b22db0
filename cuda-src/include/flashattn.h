/*
 * flashattn.h - the one contract between Rust (flashattn-sys, via bindgen) and the CUDA kernels.
 *
 * Every entry point takes a params struct by pointer and returns a status code; nothing here
 * prints, exits or synchronizes the device. Tensors are [batch, seqlen, heads, head_dim] with
 * arbitrary int64 element strides for batch, row (seqlen) and head; head_dim is contiguous.
 * The forward pass also takes packed variable-length batches ([total_tokens, heads, head_dim]
 * with int32 prefix sums of the sequence lengths, see FlashAttnFwdParams.cu_seqlens_q).
 */
#ifndef FLASHATTN_H
#define FLASHATTN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a struct below changes layout; the Rust side checks it at run time. */
#define FLASHATTN_ABI_VERSION 9

typedef enum FlashAttnDtype {
    FLASHATTN_DTYPE_F16 = 0,
    FLASHATTN_DTYPE_BF16 = 1,
} FlashAttnDtype;

typedef enum FlashAttnStatus {
    FLASHATTN_STATUS_SUCCESS = 0,
    /* A size, stride or pointer the kernels cannot handle (the Rust layer reports details). */
    FLASHATTN_STATUS_INVALID_PARAMS = 1,
    /* No kernel was compiled for this head dim (see FLASHATTN_HEAD_DIMS at build time). */
    FLASHATTN_STATUS_UNSUPPORTED_HEAD_DIM = 2,
    FLASHATTN_STATUS_UNSUPPORTED_DTYPE = 3,
    /* No compiled kernel runs on this compute capability (see FLASHATTN_CUDA_ARCHS). */
    FLASHATTN_STATUS_UNSUPPORTED_ARCH = 4,
    /* config_id names no compiled configuration, or one for another dtype/head dim. */
    FLASHATTN_STATUS_UNKNOWN_CONFIG = 5,
    /* A CUDA runtime call failed; cuda_error in the params holds its cudaError_t. */
    FLASHATTN_STATUS_CUDA_ERROR = 6,
    /* softcap or ALiBi asked of a configuration compiled without its score-modifier variant
       (FlashAttnConfig.score_mods == 0), or of a (dtype, head dim) that has none. */
    FLASHATTN_STATUS_UNSUPPORTED_FEATURE = 7,
} FlashAttnStatus;

/* How a forward launch dealt its query tiles to the SMs (FlashAttnFwdParams.schedule_used). */
typedef enum FlashAttnSchedule {
    /* One CTA per query tile: the grid holds every tile. */
    FLASHATTN_SCHEDULE_TILE_PER_CTA = 0,
    /* One CTA per SM, each walking several tiles (round robin; short last tiles dealt apart). */
    FLASHATTN_SCHEDULE_WALK = 1,
    /* A causal walk: each long query tile paired with a short one of its (batch, head) pair. */
    FLASHATTN_SCHEDULE_CAUSAL_FOLDS = 2,
    /* A walk whose last full tiles had their keys split across the SMs and merged through the
       workspace. */
    FLASHATTN_SCHEDULE_SPLIT_TAIL = 3,
} FlashAttnSchedule;

/* How a forward launch brought Q, K and V into shared memory (FlashAttnFwdParams.feed_used). */
typedef enum FlashAttnFeed {
    /* Every thread copies its 16-byte chunks with cp.async: the portable kernel, and the Hopper
       tiles for packed varlen tensors and strides no TMA tensor map describes. */
    FLASHATTN_FEED_CP_ASYNC = 0,
    /* One thread issues TMA boxes from tensor maps built on the host. */
    FLASHATTN_FEED_TMA = 1,
} FlashAttnFeed;

/*
 * Forward attention: O = softmax(logits + mask) V, plus LSE, where logits = scale * Q K^T, or
 * softcap * tanh(scale * Q K^T / softcap) with a softcap, plus the ALiBi bias.
 *
 * Visibility: query i sees key j iff j < seqlen_k and
 *   i + diag - window_left <= j <= i + diag + window_right,
 * diag = seqlen_k - seqlen_q (bottom-right, the default) or 0 (causal_top_left), a window side
 * of -1 being unbounded and causal setting window_right to 0. A query row that sees no key gets
 * O = 0 and LSE = -inf, or LSE = its head's sink logit with sinks.
 *
 * Variable length (cu_seqlens_q and cu_seqlens_k set): sequence b's queries are the packed rows
 * cu_seqlens_q[b] .. cu_seqlens_q[b + 1] of Q and O, its keys the rows cu_seqlens_k[b] ..
 * cu_seqlens_k[b + 1] of K and V (the first seqused_k[b] of them with seqused_k), and every
 * rule above holds per sequence with seqlen_q and seqlen_k its own lengths (the causal diagonal
 * is bottom-right per sequence). seqlen_q and seqlen_k are then the largest lengths (max_seqlen_q
 * sizes the grid; no query row past it is computed), the batch strides are ignored, and LSE is
 * [heads_q, total_q] (FlashAttention-2's packed layout). The prefix sums are the caller's
 * contract (0 = cu[0] <= cu[1] <= ... <= cu[batch] = total): the kernels never read them on the
 * host; they clamp each sequence into [0, total_q) and [0, total_k) and seqused_k[b] into
 * [0, its key count], so bad contents give wrong numbers, never an access outside Q, K, V, O, LSE.
 */
typedef struct FlashAttnFwdParams {
    const void *q; /* [batch, seqlen_q, heads_q, head_dim]; varlen: [total_q, heads_q, head_dim] */
    const void *k; /* [batch, seqlen_k, heads_kv, head_dim]; varlen: [total_k, heads_kv, head_dim] */
    const void *v; /* as k */
    void *o;       /* as q, same dtype */
    float *lse;    /* [batch, heads_q, seqlen_q] contiguous (varlen: [heads_q, total_q]), natural log; may be NULL */

    int64_t q_batch_stride, q_row_stride, q_head_stride;
    int64_t k_batch_stride, k_row_stride, k_head_stride;
    int64_t v_batch_stride, v_row_stride, v_head_stride;
    int64_t o_batch_stride, o_row_stride, o_head_stride;

    int32_t batch;
    int32_t seqlen_q;
    int32_t seqlen_k;
    int32_t heads_q;
    int32_t heads_kv; /* heads_q % heads_kv == 0 (GQA / MQA) */
    int32_t head_dim;

    float softmax_scale;
    /* Non-zero: key j is visible to query i iff j <= i + diag (window_right = 0, see above). */
    int32_t causal;
    FlashAttnDtype dtype;

    /* Compute capability of the device the stream belongs to, major * 10 + minor. */
    int32_t compute_capability;
    /* -1: the built-in choice for this problem; otherwise an id from flashattn_fwd_config. */
    int32_t config_id;

    /* Out: the cudaError_t behind FLASHATTN_STATUS_CUDA_ERROR, else 0. */
    int32_t cuda_error;
    /* Out: the configuration that ran (or would have run). */
    int32_t config_used;

    /* ABI 4: masks and score modifiers. Zero is "off" for every one except the windows: a
       window side of 0 sees the diagonal key alone, so a caller without windows sets both to -1. */
    int32_t window_left;     /* keys j < i + diag - window_left are masked; -1: unbounded */
    int32_t window_right;    /* keys j > i + diag + window_right are masked; -1: unbounded */
    int32_t causal_top_left; /* 0: diag = seqlen_k - seqlen_q (FlashAttention); 1: diag = 0 (PyTorch) */
    float softcap;           /* > 0: logits = softcap * tanh(scale * q.k / softcap); 0: off */
    /* ALiBi: f32 [heads_q] on the device, or NULL. Key j of query i gets the bias
       -alibi_slopes[head] * |i + diag - j| (FlashAttention-2's sign: positive slopes penalise
       distance), added after the softcap. */
    const float *alibi_slopes;
    /* Attention sinks: f32 [heads_q] on the device, natural-log logits (not scaled), or NULL.
       Each joins its head's softmax denominator as one more key with no value:
       O = sum_j exp(l_j) v_j / (sum_j exp(l_j) + exp(sink)), LSE = ln(sum_j exp(l_j) + exp(sink)). */
    const float *sinks;

    /* ABI 5: variable length. Both NULL: dense. Both set: int32 [batch + 1] prefix sums of the
       query and key lengths on the device (see above); seqlen_q / seqlen_k are then the largest
       lengths. */
    const int32_t *cu_seqlens_q;
    const int32_t *cu_seqlens_k;
    /* int32 [batch] on the device, or NULL: keys actually present per sequence (the first
       seqused_k[b] of its cu_seqlens_k rows). Varlen only. */
    const int32_t *seqused_k;
    int32_t total_q; /* varlen: rows of packed Q and O (LSE's row count), >= 1 */
    int32_t total_k; /* varlen: rows of packed K and V, >= 1 */

    /* ABI 6. Set by flashattn_fwd, a caller's value is ignored: a causal launch walks its
       (head, batch) pairs in sections of this many, whose K and V fit in L2 together
       (common/tile_work.cuh). */
    int32_t causal_section;

    /* ABI 7: f32 scratch on the device, or NULL. Where a launch's last tiles would leave some SMs
       idle while others finish (a persistent walk whose tiles do not divide evenly among the
       SMs), the kernel may split those tiles' keys across SMs and merge the parts through it
       (flashattn_fwd_workspace_floats says how much it needs; smaller or NULL: no split). It must
       be zeroed before its first use; every call that completes leaves it ready for the next (its
       counters back at zero; the partial states it keeps are rewritten before they are read). One
       call at a time may use it (calls on one stream are ordered; on several, give each its own). */
    float *workspace;
    int64_t workspace_floats;

    /* ABI 8. Out: the launch's FlashAttnSchedule (a caller's value is ignored). */
    int32_t schedule_used;
    /* ABI 9. Out: the launch's FlashAttnFeed (a caller's value is ignored). */
    int32_t feed_used;
} FlashAttnFwdParams;

/* One compiled kernel configuration: what the fuzzer sweeps and the tuner picks from. */
typedef struct FlashAttnConfig {
    int32_t id;
    FlashAttnDtype dtype;
    int32_t head_dim;
    int32_t block_m;  /* query rows per CTA */
    int32_t block_n;  /* keys per inner iteration */
    int32_t warps;     /* warps per CTA, all KV groups together */
    int32_t stages;    /* K/V shared-memory buffers per KV group */
    int32_t kv_splits; /* warp groups that split the key range inside the CTA (1: no split);
                          each warp owns block_m * kv_splits / warps query rows */
    int32_t min_compute_capability; /* oldest it runs on, major * 10 + minor */
    int32_t max_compute_capability; /* newest: arch-specific code (sm_90a) runs on one only;
                                       9999 = any newer GPU, through the embedded PTX */
    int32_t smem_bytes;
    int32_t score_mods; /* 1: also compiled with softcap and ALiBi (the tile's score-modifier kernel) */
    const char *name; /* stable, e.g. "sm80_bf16_d128_m128n64w4s1", "sm90_f16_d64_m64n128w4s2" */
} FlashAttnConfig;

int32_t flashattn_abi_version(void);

/* Number of compiled configurations; ids run from 0 to count - 1. */
int32_t flashattn_fwd_config_count(void);

/* Describe configuration `id`; FLASHATTN_STATUS_UNKNOWN_CONFIG if out of range. */
FlashAttnStatus flashattn_fwd_config(int32_t id, FlashAttnConfig *out);

/*
 * Launch the forward kernel on `stream` (a cudaStream_t / CUstream; NULL is the legacy default
 * stream). Asynchronous: returns after the launch is queued. Sets params->cuda_error,
 * params->config_used, params->schedule_used and params->feed_used.
 */
FlashAttnStatus flashattn_fwd(FlashAttnFwdParams *params, void *stream);

/* f32 elements of FlashAttnFwdParams::workspace with which a call of this head dim may split its
   last tiles on a device of sm_count SMs (any call: it depends on nothing else). */
int64_t flashattn_fwd_workspace_floats(int32_t head_dim, int32_t sm_count);

/*
 * Merge two partial attention results over disjoint key sets (split-KV, cascade and ring
 * attention): LSE = log(exp(lse_a) + exp(lse_b)), O = exp(lse_a - LSE) O_a + exp(lse_b - LSE) O_b.
 * A state whose LSE is -inf contributes nothing; two such states give O = 0, LSE = -inf.
 * O tensors are [batch, seqlen, heads, head_dim] with int64 element strides (head_dim contiguous,
 * a multiple of 8, 16-byte aligned); LSE tensors are f32 [batch, heads, seqlen] contiguous.
 * The output may be one of the inputs exactly (same pointer and strides), never overlap
 * otherwise. Compiled for every target arch (no arch-specific code).
 */
typedef struct FlashAttnMergeParams {
    const void *o_a;
    const float *lse_a;
    const void *o_b;
    const float *lse_b;
    void *o;
    float *lse; /* may be NULL */

    int64_t a_batch_stride, a_row_stride, a_head_stride;
    int64_t b_batch_stride, b_row_stride, b_head_stride;
    int64_t o_batch_stride, o_row_stride, o_head_stride;

    int32_t batch;
    int32_t seqlen;
    int32_t heads;
    int32_t head_dim;
    FlashAttnDtype dtype;

    /* Out: the cudaError_t behind FLASHATTN_STATUS_CUDA_ERROR, else 0. */
    int32_t cuda_error;
} FlashAttnMergeParams;

FlashAttnStatus flashattn_merge_states(FlashAttnMergeParams *params, void *stream);

/*
 * Decode: a few query rows per sequence (seqlen_q small: generation, speculative decoding)
 * against a KV cache that is contiguous or paged. Q and O are [batch, seqlen_q, heads_q,
 * head_dim]. The cache is either
 *   contiguous (block_table NULL): K, V [batch, seqlen_k, heads_kv, head_dim], strides as above;
 *   paged: K, V [num_pages, page_size, heads_kv, head_dim] (the batch strides step pages), and
 *     block_table int32 [batch, block_table_batch_stride >= ceil(seqlen_k / page_size)]: page of
 *     key j of sequence b is block_table[b * block_table_batch_stride + j / page_size]. A page
 *     number outside [0, num_pages) is never dereferenced: its keys are skipped.
 * seqlens_k (int32 [batch], may be NULL) gives the keys present per sequence (clamped to
 * [0, seqlen_k]); NULL means seqlen_k for all. Causal is bottom-right per sequence.
 * The key range is split into num_splits parts (one CTA each) whose partial results go to the
 * f32 workspace (flashattn_decode_workspace_floats) and are merged by a second kernel; with
 * num_splits = 1 no workspace is used. Compiled for every target arch (no arch-specific code).
 */
typedef struct FlashAttnDecodeParams {
    const void *q;
    const void *k;
    const void *v;
    void *o;
    float *lse; /* [batch, heads_q, seqlen_q] contiguous, natural log; may be NULL */
    const int32_t *block_table; /* NULL: contiguous cache */
    const int32_t *seqlens_k;   /* may be NULL */
    float *workspace;           /* f32; may be NULL when num_splits == 1 */

    int64_t q_batch_stride, q_row_stride, q_head_stride;
    int64_t k_batch_stride, k_row_stride, k_head_stride;
    int64_t v_batch_stride, v_row_stride, v_head_stride;
    int64_t o_batch_stride, o_row_stride, o_head_stride;
    int64_t block_table_batch_stride;

    int32_t batch;
    int32_t seqlen_q;
    int32_t seqlen_k; /* the most keys of any sequence */
    int32_t heads_q;
    int32_t heads_kv;
    int32_t head_dim;
    int32_t page_size; /* paged: a multiple of 16 */
    int32_t num_pages; /* paged: pages in K and V */
    int32_t num_splits;

    float softmax_scale; /* finite and > 0 */
    int32_t causal;
    FlashAttnDtype dtype;

    /* Out: the cudaError_t behind FLASHATTN_STATUS_CUDA_ERROR, else 0. */
    int32_t cuda_error;
} FlashAttnDecodeParams;

/* f32 elements of workspace a decode call with these sizes and num_splits needs. */
int64_t flashattn_decode_workspace_floats(int32_t batch, int32_t seqlen_q, int32_t heads_q, int32_t head_dim,
                                          int32_t num_splits);

FlashAttnStatus flashattn_decode(FlashAttnDecodeParams *params, void *stream);

/* Static strings; never NULL. */
const char *flashattn_status_string(FlashAttnStatus status);
const char *flashattn_cuda_error_string(int32_t cuda_error);
const char *flashattn_cuda_error_name(int32_t cuda_error);

#ifdef __cplusplus
}
#endif

#endif /* FLASHATTN_H */
