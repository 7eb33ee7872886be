# Origin: k2-fsa/icefall, egs/librispeech/ASR/zipformer/zipformer.py,
# RelPositionMultiheadAttentionWeights.forward (the weights) and SelfAttention
# (weights @ values), with scaling.py softmax (x.softmax(dim) when no gradient is
# asked), commit 36e0420c7e3e849a25b3d24dbf913c424f3d23c9 (a fetched snapshot).
# Licence: Apache-2.0 (LICENSE at that commit).
# Not copied: a NumPy reimplementation of the arithmetic for one head.
# Arithmetic kept: attn_scores = matmul(q, k) with NO 1/sqrt(d_k) (the scale is
# left to the weights: in_proj is a ScaledLinear with initial_scale
# query_head_dim**-0.25, applied to q and k alike); attn_mask (bool, TRUE =
# MASKED, as ours) by masked_fill(attn_mask, -1000) IN PLACE ("use -1000 to avoid
# nan's ... large enough that exp(-1000) is exactly zero"); the same -1000 for
# key_padding_mask; softmax(dim=-1) (torch: max, exp(x - max), / sum); the
# weights times the values; float32.
# Changed: torch -> NumPy float32; one head, one batch; the in_proj/linear_pos
# projections left out (q, k, v given); the relative-position term pos_scores
# left out (taken as zero: the brief's "RelPosition without the positional
# term"); no dropout, no training-time penalty (eval); the key_padding_mask
# folded into the mask argument (the same -1000 fill).
# Expected departures (before running): three. No scaling (scale = none);
# finite fill -1000 in place (Lemma 2 asks -inf): a fully forbidden row is
# uniform, not refused, and a forbidden key gets weight whenever the row's
# allowed logits lie below about -1000 + 88 (float32's exp underflows past
# -103); float32. Expected names: text: wrong_scale (scale = none) +
# finite_fill + low_precision (float32), but -1000 is probably not among the
# candidate fills: a wrong value (-1e4?) or "no known mistake" where the fill
# shows; own [--precision float32]: wrong_scale (scale = none) where only the
# scale shows, the fill as in text.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    attn_scores = q @ k.T
    if mask is not None:
        attn_scores = np.where(np.asarray(mask, bool), np.float32(-1000), attn_scores)
    e = np.exp(attn_scores - attn_scores.max(axis=-1, keepdims=True))
    attn_weights = e / e.sum(axis=-1, keepdims=True)
    return attn_weights @ v, attn_weights
