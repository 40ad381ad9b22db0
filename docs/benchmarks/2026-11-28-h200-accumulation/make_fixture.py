"""A slice of call FT's raw trials as the test fixture of flashattn-ref's matrix-unit model
(crates/flashattn-ref/tests/data/matrix_unit_h200.bin, read by tests/matrix_unit.rs).

Records, little-endian: u32 m, n, k; then A [m][k] and B [n][k] as f16 bits, C and D [m][n] as
f32 (D = A B^T + C as the device computed it). Eight mma.sync trials and the first 8 rows of
two wgmma trials, each from the all-positive and the signed draws.

  python3 make_fixture.py DUMP_DIR OUT_FILE   (DUMP_DIR: call FT's mma-*.bin, wgmma-*.bin)
"""
import struct
import sys

import numpy as np

from load import load


def record(out, a, b, c, d):
    m, k = a.shape
    n = b.shape[0]
    out.write(struct.pack("<3I", m, n, k))
    for arr, dtype in ((a, np.float16), (b, np.float16), (c, np.float32), (d, np.float32)):
        out.write(np.ascontiguousarray(arr).astype(dtype).tobytes())


def main(dump_dir, out_path):
    with open(out_path, "wb") as out:
        for draw in ("positive", "signed"):
            a, b, c, d = load(f"{dump_dir}/mma-{draw}.bin", 16, 16, 16)
            for t in range(8):
                record(out, a[t], b[t], c[t], d[t])
            a, b, c, d = load(f"{dump_dir}/wgmma-{draw}.bin", 64, 64, 64)
            for t in range(2):
                record(out, a[t, :8], b[t], c[t, :8], d[t, :8])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
