p='cuda-src/sm90/ws_kernel.cuh'; s=open(p).read()
a="""        if constexpr (kOFromRegisters) {
            wg.finish_to_global(p, work, lane / 4);"""; assert a in s
s=s.replace(a,"""        if constexpr (kOFromRegisters) {
            asm volatile("" : "+r"(schedule.round));
            tile = WsTile<Traits, F>(p, schedule.template coords<Work>(p, args.deal), packed);
            wg.finish_to_global(p, work, lane / 4);""")
open(p,'w').write(s)
