# Origin: mlfoundations/open_clip, src/open_clip/transformer.py, Attention.forward
# with scaled_cosine=True (scaled cosine attention after Swin Transformer V2; the
# CustomResidualAttentionBlock's scale_cosine_attn option), commit
# c8be23184250394b387a6308c567812b50770ef4 (read through the code index at that
# commit).
# Licence: MIT.
# Not copied: a NumPy port of the arithmetic for one head at initialisation.
# Arithmetic kept: float32; attn = F.normalize(q) @ F.normalize(k)^T (each row
# divided by max(its 2-norm, 1e-12)), times logit_scale = exp(clamp(log(10),
# max=log(1/0.01))) = 10 (the parameter's initial value, log(10 * ones)); NO
# 1/sqrt(d_k); a boolean attn_mask (TRUE = forbidden, as ours) turned into an
# additive float mask, -inf where true (masked_fill_ on zeros), added; attn.softmax
# (torch, max-subtracted); x = attn @ v.
# Changed: torch -> NumPy float32; one head, no projections, no head scale, no
# dropout (inference); returns (O, A).
# Expected departures (before running): the logits are 10 * cosine(q_i, k_j), not
# q_i . k_j / sqrt(d_k) (uncatalogued: the scale depends on the rows' norms, so no
# single factor of wrong_scale fits); float32; a fully forbidden row: NaN, not
# refused. Expected names: text run: "no known mistake" on the failures the cosine
# logits cause (a wrong_scale name would be WRONG); the NaN row alone might be named
# fully_forbidden_answered (NaN) where the other failures do not interfere. Own
# [--precision float32 --fully-forbidden nan]: fails on every case with d_k > 0 and
# rows not of norm sqrt(10 sqrt(d_k))...: "no known mistake" expected.
import numpy as np


def _normalize(x):
    n = np.sqrt((x * x).sum(axis=-1, keepdims=True))
    return x / np.maximum(n, np.float32(1e-12))


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    logit_scale = np.exp(np.minimum(np.float32(np.log(10.0)), np.float32(np.log(1 / 0.01))))
    attn = (_normalize(q) @ _normalize(k).T) * logit_scale
    if mask is not None:
        attn_mask = np.where(np.asarray(mask, bool), np.float32(-np.inf), np.float32(0.0))
        attn = attn + attn_mask
    e = np.exp(attn - attn.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
