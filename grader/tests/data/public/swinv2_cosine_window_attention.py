# Origin: microsoft/Swin-Transformer, models/swin_transformer_v2.py, WindowAttention.forward
# (cosine attention) and the shifted-window mask of SwinTransformerBlock.__init__,
# commit 0ae00c97cb34ac03d40683c8319ccddd1b36ad8d.
# Licence: MIT (repository LICENSE; the v1 file's header says "Licensed under The MIT
# License"; unsure: the v2 file header was not read).
# Not copied: a NumPy port of the arithmetic.
# Arithmetic kept: attn = normalize(q) @ normalize(k)^T with F.normalize (x / max(||x||,
# 1e-12)); logit_scale = exp(clamp(log(10), max=log(100))) = 10 (the parameter's
# initial value torch.log(10 * ones)); attn = attn * logit_scale; the window mask
# ADDED (0 allowed, -100.0 forbidden); softmax(dim=-1); attn @ v; float32. No
# 1/sqrt(d_k) anywhere. The mask argument (true = forbidden) becomes the 0/-100 mask.
# Changed: projections, q/v biases, heads, windows and dropout left out; the
# continuous relative position bias 16 * sigmoid(cpb_mlp(...)) (a learned positional
# term added to the logits) left out; logit_scale taken at its initial value (it is
# learned); returns (O, A).
# Expected departures (before running): logits 10 cos(q, k) instead of q.k / sqrt(d_k)
# (as open_clip_scaled_cosine.py: no catalogued scale, the factor depends on the
# norms); additive -100 mask (a fully forbidden row is the unmasked softmax; with
# logits bounded by 10 in size a forbidden key keeps between exp(-120) and exp(-80)
# relative weight: a float32 subnormal or 0, not always exactly 0 (seen on a small
# case: 3.4e-40), so forbidden-weight checks may fail); float32.
# Expected names: text and own [--precision float32]: "no known mistake" where the
# cosine shows (most value properties); fully_forbidden_refused possibly finite_fill
# (some added fill); nothing wrong expected.
import numpy as np


def _normalize(x):
    n = np.sqrt((x * x).sum(axis=-1, keepdims=True))
    return x / np.maximum(n, np.float32(1e-12))


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    attn = _normalize(q) @ _normalize(k).T
    logit_scale = np.exp(np.minimum(np.log(np.float32(10.0)), np.log(np.float32(100.0))))
    attn = attn * np.float32(logit_scale)
    if mask is not None:
        attn = attn + np.where(np.asarray(mask, bool), np.float32(-100.0), np.float32(0.0))
    e = np.exp(attn - attn.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
