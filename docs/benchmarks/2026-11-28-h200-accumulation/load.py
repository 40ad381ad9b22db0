"""Reads one dump of accumulation_probe.cu or accumulation_dump.cu: A [T][m][k], B [T][n][k]
(f16 or bf16 bits), C, D [T][m][n] (f32)."""
import numpy as np
def halves(raw, count, offset, dtype):
    bits = np.frombuffer(raw, np.uint16, count, offset)
    if dtype == 'bf16':
        return (bits.astype(np.uint32) << 16).view(np.float32)
    return bits.view(np.float16)


def load(path, m, n, k, dtype='f16'):
    raw = open(path,'rb').read()
    per = m*k*2 + n*k*2 + m*n*4*2
    T = len(raw)//per
    off=0
    a = halves(raw, T*m*k, off, dtype).reshape(T,m,k).astype(np.float64); off += T*m*k*2
    b = halves(raw, T*n*k, off, dtype).reshape(T,n,k).astype(np.float64); off += T*n*k*2
    c = np.frombuffer(raw, np.float32, T*m*n, off).reshape(T,m,n); off += T*m*n*4
    d = np.frombuffer(raw, np.float32, T*m*n, off).reshape(T,m,n)
    return a,b,c,d
