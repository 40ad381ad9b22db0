p='cuda-src/sm90/ws_kernel.cuh'; s=open(p).read()
a="""                auto load_kv = [&](int i) {
                    const int j = kv + i, stage = j % kStages;
                    if (j >= kStages) barrier_wait(k_empty(stage), parity(j) ^ 1);
                    const int row = tile.work.k_first + tile.key0(i);
                    barrier_arrive_expect_tx(k_full(stage), Traits::kTileBytes);
#pragma unroll
                    for (int a = 0; a < kAtoms; ++a)
                        tma_load_4d(k_smem(stage) + a * kBlockN * kAtomRowBytes, &args.k, k_full(stage), a * 64, row,
                                    kv_head, tile.batch_coord);
                    if (j >= kStages) barrier_wait(v_empty(stage), parity(j) ^ 1);
"""
b="""                auto load_k = [&](int i) {
                    const int j = kv + i, stage = j % kStages;
                    if (j >= kStages) barrier_wait(k_empty(stage), parity(j) ^ 1);
                    const int row = tile.work.k_first + tile.key0(i);
                    barrier_arrive_expect_tx(k_full(stage), Traits::kTileBytes);
#pragma unroll
                    for (int a = 0; a < kAtoms; ++a)
                        tma_load_4d(k_smem(stage) + a * kBlockN * kAtomRowBytes, &args.k, k_full(stage), a * 64, row,
                                    kv_head, tile.batch_coord);
                };
                auto load_v = [&](int i) {
                    const int j = kv + i, stage = j % kStages;
                    const int row = tile.work.k_first + tile.key0(i);
                    if (j >= kStages) barrier_wait(v_empty(stage), parity(j) ^ 1);
"""
assert a in s; s=s.replace(a,b)
a="""                        tma_load_4d(v_smem(stage) + a * kBlockN * kAtomRowBytes, &args.v, v_full(stage), a * 64, row,
                                    kv_head, tile.batch_coord);
                };
"""
b="""                        tma_load_4d(v_smem(stage) + a * kBlockN * kAtomRowBytes, &args.v, v_full(stage), a * 64, row,
                                    kv_head, tile.batch_coord);
                };
                auto load_kv = [&](int i) {
                    load_k(i);
                    load_v(i);
                };
"""
assert a in s; s=s.replace(a,b)
a="""                if (t > 0) {
                    load_kv(0);
                    barrier_wait(q_empty, (t - 1) & 1);
                }"""
b="""                if (t > 0) {
                    load_k(0);
                    barrier_wait(q_empty, (t - 1) & 1);
                }"""
assert a in s; s=s.replace(a,b)
a="""                timeline_value(t, kMarkKeyTiles, tile.n_blocks);
"""
b="""                timeline_value(t, kMarkKeyTiles, tile.n_blocks);
                if (t > 0) load_v(0);
"""
assert a in s; s=s.replace(a,b)
open(p,'w').write(s)
