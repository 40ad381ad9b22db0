"""A slice of calls FT's and FY's raw trials as the test fixture of flashattn-ref's matrix-unit
model (crates/flashattn-ref/tests/data/matrix_unit_h200.bin, read by tests/matrix_unit.rs).

Records, little-endian: u32 m, n, k, format (0 f16, 1 bf16); then A [m][k] and B [n][k] as
16-bit values, C and D [m][n] as f32 (D = A B^T + C as the device computed it). Per draw (f16
all-positive and signed, bf16 all-positive and signed, f16 a third subnormal): six mma.sync
trials and the first 8 rows of one wgmma trial. For the subnormal draw the six mma.sync trials are
those where aligning a subnormal at its own exponent would miss the device's output.

  python3 make_fixture.py FT_DIR FY_DIR OUT_FILE   (the folders holding each call's *.bin dumps)
"""
import struct
import sys

import numpy as np

import fit
from load import load

FORMATS = {'f16': 0, 'bf16': 1}


def record(out, fmt, a, b, c, d):
    m, k = a.shape
    n = b.shape[0]
    out.write(struct.pack("<4I", m, n, k, FORMATS[fmt]))
    for arr in (a, b):
        if fmt == 'f16':
            out.write(np.ascontiguousarray(arr).astype(np.float16).tobytes())
        else:  # bf16: the top half of the f32 bits (exact for bf16 values)
            out.write((np.ascontiguousarray(arr).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).tobytes())
    for arr in (c, d):
        out.write(np.ascontiguousarray(arr).astype(np.float32).tobytes())


def face_value_misses(a, b, c, d):
    """Trials where the model with subnormals at their own exponent disagrees with the device."""
    got = fit.model(a, b, c, 16, 25, 'sum', True, 'tz', 'rz')
    return [t for t in range(a.shape[0]) if (got[t].view(np.uint32) != d[t].view(np.uint32)).any()]


def main(ft_dir, fy_dir, out_path):
    draws = [(ft_dir, 'positive', 'f16'), (ft_dir, 'signed', 'f16'), (fy_dir, 'bf16-positive', 'bf16'),
             (fy_dir, 'bf16-signed', 'bf16'), (fy_dir, 'f16-subnormal', 'f16')]
    with open(out_path, "wb") as out:
        for folder, draw, fmt in draws:
            a, b, c, d = load(f"{folder}/mma-{draw}.bin", 16, 16, 16, fmt)
            trials = face_value_misses(a, b, c, d)[:6] if draw == 'f16-subnormal' else range(6)
            for t in trials:
                record(out, fmt, a[t], b[t], c[t], d[t])
            a, b, c, d = load(f"{folder}/wgmma-{draw}.bin", 64, 64, 64, fmt)
            record(out, fmt, a[0, :8], b[0], c[0, :8], d[0, :8])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
