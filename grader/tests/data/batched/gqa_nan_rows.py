"""The reference kernel (gqa.py) without the refusal of a fully forbidden row:
the masked softmax gives that row 0/0 = NaN (as PyTorch before 2.5 did).
Fails fully_forbidden_refused under --fully-forbidden error (the default)
and passes every property with --fully-forbidden nan.
"""

import numpy as np


def gqa(Q, K, V, mask=None, scale=None, causal=False, alignment="top_left"):
    if Q.ndim != 4 or K.ndim != 4 or V.ndim != 4:
        raise ValueError("Q, K and V must be 4-D (N, heads, T, d)")
    N, H, T_q, d_k = Q.shape
    _, H_kv, T_v, _ = K.shape
    if K.shape[0] != N or V.shape[0] != N:
        raise ValueError("Q, K and V must have the same batch size")
    if V.shape[1] != H_kv or V.shape[2] != T_v:
        raise ValueError("K and V must have the same heads and keys")
    if K.shape[3] != d_k or d_k == 0:
        raise ValueError("Q and K must have the same d_k >= 1")
    if H_kv == 0 or H % H_kv != 0:
        raise ValueError("H_kv = %d does not divide H = %d" % (H_kv, H))
    K = np.repeat(K, H // H_kv, axis=1)
    V = np.repeat(V, H // H_kv, axis=1)
    if scale is None:
        scale = 1.0 / np.sqrt(d_k)
    S = np.einsum("nhqd,nhkd->nhqk", Q, K) * scale
    forbidden = np.zeros(S.shape, dtype=bool)
    if mask is not None:
        if mask.ndim not in (2, 4):
            raise ValueError("the mask must be 2-D or 4-D")
        forbidden |= np.broadcast_to(mask, S.shape)  # ValueError if it does not broadcast
    if causal:
        offset = T_v - T_q if alignment == "bottom_right" else 0
        forbidden |= np.arange(T_v)[None, :] > np.arange(T_q)[:, None] + offset
    S = np.where(forbidden, -np.inf, S)
    with np.errstate(invalid="ignore"):  # -inf - -inf on a row without keys
        P = np.exp(S - S.max(axis=-1, keepdims=True))
        return (P / P.sum(axis=-1, keepdims=True)) @ V
