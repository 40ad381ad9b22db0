p='cuda-src/sm90/ws_kernel.cuh'; s=open(p).read()
a="""        wg.to_p(acc_s, offsets, p_frag);
        for (int iter = 1; iter < n_blocks; ++iter) {"""
assert a in s; s=s.replace(a,"""        wg.to_p(acc_s, offsets, p_frag);
#pragma unroll 1
        for (int iter = 1; iter < n_blocks; ++iter) {"""); open(p,'w').write(s)
