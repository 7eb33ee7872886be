"""Grouped-query attention the PyTorch way (torch 1.13 has no enable_gqa):
repeat_interleave puts each kv head beside its H // H_kv query heads, then
matmul, masked_fill with -inf and softmax. A query row with every key
forbidden comes out NaN (softmax of -inf everywhere), PyTorch's answer before
2.5: check it with --fully-forbidden nan.

The mask is attnlab's (True = forbidden), the polarity of masked_fill; the
shape checks are the ones torch.nn.functional.scaled_dot_product_attention
(enable_gqa=True) makes from 2.5 on.
"""

import torch


def gqa(Q, K, V, mask=None, scale=None, causal=False, alignment="top_left"):
    Q, K, V = (torch.from_numpy(x) for x in (Q, K, V))
    if Q.dim() != 4 or K.dim() != 4 or V.dim() != 4:
        raise ValueError("Q, K and V must be 4-D (N, heads, T, d)")
    N, H, T_q, d_k = Q.shape
    H_kv, T_v = K.shape[1], K.shape[2]
    if K.shape[0] != N or V.shape[0] != N or V.shape[1] != H_kv or V.shape[2] != T_v:
        raise ValueError("K and V do not fit Q: %s, %s, %s" % (Q.shape, K.shape, V.shape))
    if K.shape[3] != d_k or d_k == 0:
        raise ValueError("Q and K must have the same d_k >= 1")
    if H_kv == 0 or H % H_kv != 0:
        raise ValueError("number of heads in K and V must divide the number of heads in Q")
    K = K.repeat_interleave(H // H_kv, dim=1)
    V = V.repeat_interleave(H // H_kv, dim=1)
    S = torch.matmul(Q, K.transpose(-2, -1)) * (d_k ** -0.5 if scale is None else scale)
    if mask is not None:
        if mask.ndim not in (2, 4):
            raise ValueError("the mask must be 2-D or 4-D")
        S = S.masked_fill(torch.from_numpy(mask).expand(N, H, T_q, T_v), float("-inf"))
    if causal:
        offset = T_v - T_q if alignment == "bottom_right" else 0
        above = torch.ones(T_q, T_v, dtype=torch.bool).triu(diagonal=offset + 1)
        S = S.masked_fill(above, float("-inf"))
    return torch.matmul(torch.softmax(S, dim=-1), V).numpy()
