"""Reads one dump of accumulation_probe.cu: A [T][m][k], B [T][n][k] (f16), C, D [T][m][n] (f32)."""
import numpy as np
def load(path, m, n, k):
    raw = open(path,'rb').read()
    per = m*k*2 + n*k*2 + m*n*4*2
    T = len(raw)//per
    off=0
    a = np.frombuffer(raw, np.float16, T*m*k, off).reshape(T,m,k).astype(np.float64); off += T*m*k*2
    b = np.frombuffer(raw, np.float16, T*n*k, off).reshape(T,n,k).astype(np.float64); off += T*n*k*2
    c = np.frombuffer(raw, np.float32, T*m*n, off).reshape(T,m,n); off += T*m*n*4
    d = np.frombuffer(raw, np.float32, T*m*n, off).reshape(T,m,n)
    return a,b,c,d
