"""One cuDNN SDPA call ([B, H, S, D]) inside a profiler range, after five warm-up calls, so
`ncu --profile-from-start off` sees exactly the kernels of that call. Arguments: B H S D [DTYPE]
(f16, the default, or bf16)."""
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

b, h, s, d = map(int, sys.argv[1:5])
dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[sys.argv[5] if len(sys.argv) > 5 else "f16"]
q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dtype) for _ in range(3))
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(5):
        torch.nn.functional.scaled_dot_product_attention(q, k, v)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    torch.nn.functional.scaled_dot_product_attention(q, k, v)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
