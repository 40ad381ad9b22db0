"""Warp stall samples of an Nsight Compute source page, summed by stall reason and by opcode.

Input: `ncu -i REPORT --page source --csv --print-source sass > X.sass.csv` of a report taken
with the SourceCounters section (call-p.sh). Prints, per file, the share of all samples each
stall reason took, then the opcodes that took the most samples with their executed counts and
their three main stall reasons: where a kernel's warps wait, instruction by instruction kind.

    python3 stalls.py call-p/*.sass.csv   (after xz -d on the stored .xz files)
"""
import csv, sys, collections, re
def load(f):
    rows=list(csv.reader(open(f)))
    hdr=rows[1]; data=rows[2:]
    return hdr,data
for f in sys.argv[1:]:
    hdr,data=load(f)
    idx={h:i for i,h in enumerate(hdr)}
    stall_cols=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
    tot=collections.Counter(); byop=collections.Counter(); byop_st=collections.defaultdict(collections.Counter)
    samples=0; execd=collections.Counter()
    for r in data:
        if len(r)<len(hdr): continue
        src=r[idx['Source']].strip()
        op=re.sub(r'^@!?U?P\w+\s+','',src).split(' ')[0]
        n=int(r[idx['Warp Stall Sampling (All Samples)']] or 0)
        samples+=n; byop[op]+=n
        execd[op]+=int(r[idx['Instructions Executed']] or 0)
        for c in stall_cols:
            v=int(r[idx[c]] or 0); tot[c]+=v; byop_st[op][c]+=v
    print('==',f, 'samples',samples)
    for c,v in tot.most_common(10): print('   %-24s %6.1f%%'%(c,100*v/samples))
    print('  by opcode (share of samples, top stalls):')
    for op,v in byop.most_common(16):
        top=', '.join('%s %.0f%%'%(c[6:],100*x/v) for c,x in byop_st[op].most_common(3) if x)
        print('   %-22s %5.1f%%  exec %6.1fM  | %s'%(op,100*v/samples,execd[op]/1e6,top))
