p='cuda-src/sm90/ws_kernel.cuh'; s=open(p).read()
a="""            arrive_warp(k_empty(stage_of(iter)));
            if (kPersistent && !kReleaseQAfterLoop && iter == n_blocks - 1) arrive_warp(q_empty);
            offsets = wg.update_max(acc_s, p, tile.key0(iter));
"""
assert a in s; s=s.replace(a,"""            if (kPersistent && !kReleaseQAfterLoop && iter == n_blocks - 1) arrive_warp(q_empty);
            offsets = wg.update_max(acc_s, p, tile.key0(iter));
            arrive_warp(k_empty(stage_of(iter)));
"""); open(p,'w').write(s)
