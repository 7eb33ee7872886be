# Origin: microsoft/Swin-Transformer, models/swin_transformer.py, WindowAttention.forward
# and the shifted-window mask of SwinTransformerBlock.__init__, commit
# 9cd3dbd4a60ffc82f930f189284e46a5ad1f3bb0.
# Licence: MIT (file header: "Licensed under The MIT License").
# Not copied: a NumPy port of the arithmetic.
# Arithmetic kept: q = q * scale with scale = head_dim ** -0.5 (qk_scale default None)
# BEFORE the product; attn = q @ k^T; the window mask ADDED to the logits, the
# source's mask being 0 where allowed and -100.0 where forbidden (masked_fill(attn_mask
# != 0, -100.0)); nn.Softmax(dim=-1) (exp(x - max) / sum); x = attn @ v; float32.
# The mask argument (true = forbidden, as attnlab's) becomes that 0/-100 float mask.
# Changed: the qkv and output projections, the heads, the window partition and
# dropout left out; the relative position bias (a learned table added to the
# logits, trunc_normal init) left out: it is a positional term, not part of the
# masking arithmetic (unsure whether attnlab would rather see it as zero: leaving it
# out is the same as a zero table); one window, one head; returns (O, A).
# Expected departures (before running): additive finite mask -100 (Lemma 2 asks
# -inf): a forbidden key keeps weight exp(-100) relative to an allowed key of equal
# logit, about 4e-44, a float32 SUBNORMAL, not 0 (seen on a small case: 3.4e-44), so
# every row with a forbidden key has forbidden weights that are not exactly 0, and
# large ones where the allowed logits lie 100 or more below the forbidden ones
# (exact_zeros); a fully forbidden row is the unmasked softmax of its logits, not
# refused; float32.
# Expected names: text: finite_fill (fill = -100 added) + low_precision (float32), but
# -100 is likely not a candidate fill, so possibly a different value (-1e4 added)
# or "no known mistake"; own [--precision float32]: finite_fill (-100 added) or none.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scale = np.float32(q.shape[-1] ** -0.5)
    attn = (q * scale) @ k.T
    if mask is not None:
        add = np.where(np.asarray(mask, bool), np.float32(-100.0), np.float32(0.0))
        attn = attn + add
    e = np.exp(attn - attn.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
