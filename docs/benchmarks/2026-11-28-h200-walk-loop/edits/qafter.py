p='cuda-src/sm90/ws_kernel.cuh'; s=open(p).read()
a="""            arrive_warp(k_empty(stage_of(iter)));
            if (kPersistent && iter == n_blocks - 1) arrive_warp(q_empty);
            offsets"""; assert a in s
s=s.replace(a,"""            arrive_warp(k_empty(stage_of(iter)));
            offsets""")
a="""        if (kOTile && args.o_by_tma && store_thread) bulk_wait_read();
        begin_turn();"""; assert a in s
s=s.replace(a,"""        if (kOTile && args.o_by_tma && store_thread) bulk_wait_read();
        if (kPersistent && n_blocks > 1) arrive_warp(q_empty);
        begin_turn();""")
open(p,'w').write(s)
