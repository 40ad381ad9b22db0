"""The additive attention mask that stands in for our masks and ALiBi when PyTorch's SDPA is the
baseline (sdpa_baseline.py) or the accuracy peer (sdpa_accuracy.py). Imported from beside those
scripts; scripts/gpu-pack.sh copies every script of this folder, so it travels with them."""


def additive_mask(torch, seqlen_q, seqlen_k, diagonal, left, right, slopes, device, dtype):
    """The mask in `dtype`, [len(slopes), Sq, Sk] with ALiBi slopes, else [1, Sq, Sk]. With
    rel = j - (i + diagonal), query i sees key j iff -left <= rel <= right (None: that side is
    unbounded), -inf elsewhere; a visible entry holds -slopes[h] * |rel| (0 without slopes)."""
    i = torch.arange(seqlen_q, device=device)[:, None]
    j = torch.arange(seqlen_k, device=device)[None, :]
    rel = j - (i + diagonal)
    visible = torch.ones(seqlen_q, seqlen_k, dtype=torch.bool, device=device)
    if left is not None:
        visible &= rel >= -left
    if right is not None:
        visible &= rel <= right
    bias = torch.zeros(1, seqlen_q, seqlen_k, dtype=dtype, device=device)
    if slopes:
        s = torch.tensor(slopes, dtype=dtype, device=device)
        bias = -s[:, None, None] * rel.abs().to(dtype)[None]
    return bias.masked_fill(~visible[None], float("-inf"))
