p='cuda-src/sm90/ws_kernel.cuh'; s=open(p).read()
a="""        wg.to_p(acc_s, offsets, p_frag);
        for (int iter = 1; iter < n_blocks; ++iter) {
            barrier_wait(k_full(stage_of(iter)), parity_of(iter));
            begin_turn();
            if (iter < kTimelineTurns) mark(t, kMarkTurn + iter);
            wg.issue_qk(acc_s, q_smem, k_smem(stage_of(iter)));
            wg.rescale_o(offsets);
            hold(wg.acc_o);
            wait_v(iter - 1);
            wg.issue_pv(p_frag, v_smem(stage_of(iter - 1)));
            end_turn(false);
            wgmma_wait<1>();  // S; P.V of the previous tile may still run
            hold(acc_s);
            arrive_warp(k_empty(stage_of(iter)));"""
b="""        wg.to_p(acc_s, offsets, p_frag);
        int stage = stage_of(1), prev_stage = stage_of(0);
        uint32_t phase = parity_of(1);
        for (int iter = 1; iter < n_blocks; ++iter) {
            barrier_wait(k_full(stage), phase);
            begin_turn();
            if (iter < kTimelineTurns) mark(t, kMarkTurn + iter);
            wg.issue_qk(acc_s, q_smem, k_smem(stage));
            wg.rescale_o(offsets);
            hold(wg.acc_o);
            wait_v(iter - 1);
            wg.issue_pv(p_frag, v_smem(prev_stage));
            end_turn(false);
            wgmma_wait<1>();  // S; P.V of the previous tile may still run
            hold(acc_s);
            arrive_warp(k_empty(stage));"""
assert a in s; s=s.replace(a,b)
a="""            arrive_warp(v_empty(stage_of(iter - 1)));
            if constexpr (kExpUnderPV)
                wg.pack_p(acc_s, p_frag);
            else
                wg.to_p(acc_s, offsets, p_frag);
        }"""
b="""            arrive_warp(v_empty(prev_stage));
            if constexpr (kExpUnderPV)
                wg.pack_p(acc_s, p_frag);
            else
                wg.to_p(acc_s, offsets, p_frag);
            prev_stage = stage;
            if (++stage == kStages) {
                stage = 0;
                phase ^= 1;
            }
        }"""
assert a in s; s=s.replace(a,b); open(p,'w').write(s)
