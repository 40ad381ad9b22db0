// The dense self-attention call the standalone probes time: [batch, seqlen, heads, head_dim]
// tensors filled from a hash of the index (the values do not matter to the timing, only that they
// are finite and not all equal), and the params flashattn_fwd would pass the tile's launcher;
// optionally with the masks and score modifiers of the benchmark's suites (Mods).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "flashattn.h"

#define PROBE_CHECK(call)                                                                              \
    do {                                                                                               \
        cudaError_t e_ = (call);                                                                       \
        if (e_ != cudaSuccess) {                                                                       \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            std::exit(1);                                                                              \
        }                                                                                              \
    } while (0)

namespace probe_inputs {

// Values in [-1, 1).
__global__ void fill(uint16_t *x, size_t n, uint32_t seed, bool bf16) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        const float v = (h & 0xffff) / 32768.0f - 1.0f;
        x[i] = bf16 ? __bfloat16_as_ushort(__float2bfloat16(v)) : __half_as_ushort(__float2half(v));
    }
}

// Masks and score modifiers, from a shape's trailing words: causal, window=LEFT,RIGHT,
// softcap=CAP, alibi, sinks, lse; keys=N, a key count other than the query count; split, a
// workspace (FlashAttnFwdParams::workspace, 64 MiB zeroed) with which a walk may split its tail.
struct Mods {
    bool causal = false, alibi = false, sinks = false, lse = false, split = false;
    int window_left = -1, window_right = -1;
    int keys = 0;  // 0: as many keys as queries
    float softcap = 0.f;

    // False on a word it does not know.
    bool parse(const char *word) {
        if (std::strcmp(word, "causal") == 0) return causal = true;
        if (std::strcmp(word, "alibi") == 0) return alibi = true;
        if (std::strcmp(word, "sinks") == 0) return sinks = true;
        if (std::strcmp(word, "lse") == 0) return lse = true;
        if (std::strcmp(word, "split") == 0) return split = true;
        if (std::sscanf(word, "softcap=%f", &softcap) == 1) return softcap > 0.f;
        if (std::sscanf(word, "keys=%d", &keys) == 1) return keys > 0;
        return std::sscanf(word, "window=%d,%d", &window_left, &window_right) == 2;
    }
};

struct DenseCall {
    FlashAttnFwdParams params;
    uint16_t *q, *k, *v, *o;
    float *alibi_slopes = nullptr, *sinks = nullptr, *lse = nullptr, *workspace = nullptr;
    size_t elems;  // of Q and of O

    DenseCall(bool bf16, int batch, int heads, int seqlen, int head_dim)
        : DenseCall(bf16, batch, heads, seqlen, seqlen, head_dim) {}
    DenseCall(bool bf16, int batch, int heads, int seqlen, int seqlen_k, int head_dim) : params{} {
        elems = static_cast<size_t>(batch) * seqlen * heads * head_dim;
        const size_t kv_elems = static_cast<size_t>(batch) * seqlen_k * heads * head_dim;
        PROBE_CHECK(cudaMalloc(&q, elems * 2));
        PROBE_CHECK(cudaMalloc(&k, kv_elems * 2));
        PROBE_CHECK(cudaMalloc(&v, kv_elems * 2));
        PROBE_CHECK(cudaMalloc(&o, elems * 2));
        fill<<<1024, 256>>>(q, elems, 1, bf16);
        fill<<<1024, 256>>>(k, kv_elems, 2, bf16);
        fill<<<1024, 256>>>(v, kv_elems, 3, bf16);
        PROBE_CHECK(cudaGetLastError());
        FlashAttnFwdParams &p = params;
        p.q = q;
        p.k = k;
        p.v = v;
        p.o = o;
        const int64_t row = static_cast<int64_t>(heads) * head_dim;
        p.q_batch_stride = p.o_batch_stride = row * seqlen;
        p.k_batch_stride = p.v_batch_stride = row * seqlen_k;
        p.q_row_stride = p.k_row_stride = p.v_row_stride = p.o_row_stride = row;
        p.q_head_stride = p.k_head_stride = p.v_head_stride = p.o_head_stride = head_dim;
        p.batch = batch;
        p.seqlen_q = seqlen;
        p.seqlen_k = seqlen_k;
        p.heads_q = p.heads_kv = heads;
        p.head_dim = head_dim;
        p.softmax_scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
        p.dtype = bf16 ? FLASHATTN_DTYPE_BF16 : FLASHATTN_DTYPE_F16;
        p.compute_capability = 90;
        p.config_id = -1;
        p.window_left = p.window_right = -1;
        p.total_q = p.total_k = 1;
    }
    // ALiBi slopes 2^(-8 (h + 1) / heads), as in the ALiBi paper; sink logits of 1.0.
    void apply(const Mods &m) {
        FlashAttnFwdParams &p = params;
        const int heads = p.heads_q;
        auto upload = [heads](auto value_of) {
            std::vector<float> host(heads);
            for (int h = 0; h < heads; ++h) host[h] = value_of(h);
            float *device = nullptr;
            PROBE_CHECK(cudaMalloc(&device, heads * sizeof(float)));
            PROBE_CHECK(cudaMemcpy(device, host.data(), heads * sizeof(float), cudaMemcpyHostToDevice));
            return device;
        };
        p.causal = m.causal;
        p.window_left = m.window_left;
        p.window_right = m.window_right;
        p.softcap = m.softcap;
        if (m.alibi) p.alibi_slopes = alibi_slopes = upload([heads](int h) { return std::exp2(-8.0f * (h + 1) / heads); });
        if (m.sinks) p.sinks = sinks = upload([](int) { return 1.0f; });
        if (m.lse) PROBE_CHECK(cudaMalloc(&lse, static_cast<size_t>(p.batch) * heads * p.seqlen_q * sizeof(float)));
        p.lse = lse;
        if (m.split) {
            constexpr size_t kWorkspaceFloats = size_t{16} << 20;
            PROBE_CHECK(cudaMalloc(&workspace, kWorkspaceFloats * sizeof(float)));
            PROBE_CHECK(cudaMemset(workspace, 0, kWorkspaceFloats * sizeof(float)));
            p.workspace = workspace;
            p.workspace_floats = kWorkspaceFloats;
        }
    }
    ~DenseCall() {
        cudaFree(q);
        cudaFree(k);
        cudaFree(v);
        cudaFree(o);
        cudaFree(alibi_slopes);
        cudaFree(sinks);
        cudaFree(lse);
        cudaFree(workspace);
    }
    DenseCall(const DenseCall &) = delete;
    DenseCall &operator=(const DenseCall &) = delete;
};

}  // namespace probe_inputs
