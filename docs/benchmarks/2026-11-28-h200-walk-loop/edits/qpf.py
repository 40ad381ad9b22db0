# The persistent walk's producer prefetches its next tile's Q box into L2 once this tile's Q is issued.
p='cuda-src/sm90/tma.cuh'; s=open(p).read()
a="""// One box of shared memory (the tensor map's swizzle layout) out to a 4-D tensor map"""
b="""__device__ __forceinline__ void tma_prefetch_l2_4d(const CUtensorMap *map, int c0, int c1, int c2, int c3) {
    asm volatile("cp.async.bulk.prefetch.tensor.4d.L2.global.tile [%0, {%1, %2, %3, %4}];\\n" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}

// One box of shared memory (the tensor map's swizzle layout) out to a 4-D tensor map"""
assert a in s; s=s.replace(a,b,1); open(p,'w').write(s)
p='cuda-src/sm90/ws_kernel.cuh'; s=open(p).read()
a="""                timeline_value(t, kMarkKeyTiles, tile.n_blocks);
"""
b="""                timeline_value(t, kMarkKeyTiles, tile.n_blocks);
                if constexpr (kPersistent && kPrefetchNextQ) {
                    TileSchedule<kPersistent> ahead = schedule;
                    if (ahead.next(p)) {
                        const WsTile<Traits, F> next(p, ahead.template coords<Work>(p, args.deal), packed);
#pragma unroll
                        for (int a = 0; a < kAtoms; ++a)
                            tma_prefetch_l2_4d(&args.q, a * 64, next.work.q_first + next.work.row_begin, next.work.head,
                                               next.batch_coord);
                    }
                }
"""
assert a in s; s=s.replace(a,b,1)
a="""    const bool packed = !kPersistent && F::kVarlen && p.cu_seqlens_q != nullptr;
"""
b="""    const bool packed = !kPersistent && F::kVarlen && p.cu_seqlens_q != nullptr;
    constexpr bool kPrefetchNextQ = true;
"""
assert a in s; s=s.replace(a,b,1)
open(p,'w').write(s)
