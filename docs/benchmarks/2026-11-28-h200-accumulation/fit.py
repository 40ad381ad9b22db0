"""Which model of a k-step's f32 sum matches the matrix units' outputs bit for bit: every
combination of block size, bits kept, how a product's exponent is taken, whether the accumulator
is aligned with the products, how terms are cut and how the step's sum goes to f32, scored on a
dump of accumulation_probe.cu (call FT)."""
import numpy as np, itertools, sys
from load import load

def ilogb(x):
    # floor(log2|x|) for x != 0; -inf-ish for 0
    with np.errstate(divide='ignore'):
        e = np.frexp(x)[1] - 1
    return np.where(x == 0, -10**6, e)

def to_f32(x, mode):
    f = x.astype(np.float32)
    fd = f.astype(np.float64)
    if mode == 'rn':
        return f
    if mode == 'rz':
        over = np.abs(fd) > np.abs(x)
        return np.where(over, np.nextafter(f, np.float32(0)), f)
    if mode == 'rd':
        over = fd > x
        return np.where(over, np.nextafter(f, np.float32(-np.inf)), f)

def model(a, b, c, block, F, expmode, acc_aligned, termround, final):
    # a: (T,M,K) b: (T,N,K) c: (T,M,N) -> (T,M,N)
    T, M, K = a.shape
    N = b.shape[1]
    A = a[:, :, None, :]  # T M 1 K
    B = b[:, None, :, :]  # T 1 N K
    P = A * B             # exact
    if expmode in ('sum', 'sum_emin'):
        # 'sum_emin': a subnormal input counts as the format's smallest normal exponent
        emin = EMIN if expmode == 'sum_emin' else -10**6
        EP = np.maximum(ilogb(A), emin) + np.maximum(ilogb(B), emin)
        EP = np.where(P == 0, -10**6, EP)
    else:
        EP = ilogb(P)
    acc = c.astype(np.float64)
    for k0 in range(0, K, block):
        p = P[..., k0:k0+block]
        ep = EP[..., k0:k0+block]
        E = ep.max(-1)
        if acc_aligned:
            E = np.maximum(E, ilogb(acc))
        q = np.ldexp(1.0, (E - F).clip(-1000, 1000))[..., None]
        if termround == 'tz':
            cut = lambda x, q: np.trunc(x / q) * q
        else:
            cut = lambda x, q: np.floor(x / q) * q
        s = cut(p, q).sum(-1)
        if acc_aligned:
            s = s + cut(acc[..., None], q)[..., 0]
            acc = to_f32(s, final).astype(np.float64)
        else:
            acc = to_f32(acc + to_f32(s, final).astype(np.float64), final).astype(np.float64)
    return acc.astype(np.float32)

EMIN = -14


def run(path, m, n, k, blocks, dtype):
    global EMIN
    EMIN = -126 if dtype == 'bf16' else -14
    a, b, c, d = load(path, m, n, k, dtype)
    res = []
    for block, F, expmode, acc_aligned, termround, final in itertools.product(
            blocks, range(22, 29), ['sum', 'sum_emin', 'actual'], [True, False], ['tz', 'floor'], ['rz', 'rn', 'rd']):
        got = model(a, b, c, block, F, expmode, acc_aligned, termround, final)
        match = (got.view(np.uint32) == d.view(np.uint32)).mean()
        res.append((match, block, F, expmode, acc_aligned, termround, final))
    res.sort(reverse=True)
    for r in res[:8]:
        print('  %.5f block %d F %d exp %s acc_aligned %s terms %s final %s' % r)

if __name__ == '__main__':
    # python3 fit.py DIR NAME: NAME.bin in DIR, as accumulation_probe.cu wrote it (mma-positive,
    # mma-signed, wgmma-positive, wgmma-signed); prints the eight models that match most outputs.
    # (accumulation_dump.cu's NAME-bf16-* dumps hold bf16 inputs)
    folder, which = sys.argv[1], sys.argv[2]
    shape = (16, 16, 16) if which.startswith('mma') else (64, 64, 64)
    run('%s/%s.bin' % (folder, which), *shape, [4, 8, 16], 'bf16' if 'bf16' in which else 'f16')
