# Origin: dmlc/gluon-nlp, src/gluonnlp/torch/attention_cell.py, masked_softmax and
# multi_head_dot_attn (layout 'NKT', scaled=True, normalized=False),
# commit 14553a0c19790a3b03e8107471c987c7aa4f8faa.
# Licence: Apache-2.0 (the file's ASF header).
# Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: scores = q k^T, then DIVIDED by sqrt(q.shape[-1]); the mask is a
# KEEP mask (1 = attend); masked_fill(~mask, -1e18) (float32; -1e4 only for float16);
# th.softmax (max-subtracted) and then the result MULTIPLIED by the mask (no
# renormalisation); context = weights @ v.
# Changed: torch -> NumPy float32; one head, no batch; no dropout; the mask argument
# (true = forbidden) inverted to gluon-nlp's keep mask; returns (O, A).
# Expected departures (before running): float32; a fully forbidden row: softmax of
# all -1e18 is uniform, times the all-zero mask gives a zero row (answered, zeros),
# not refused; an allowed row whose logits all lie below -1e18 (the edge cases at
# -2e20, -3e38, float lowest) gives its weight to the -1e18 forbidden keys, which
# the mask product then zeroes: an all-zero row where allowed keys exist (rows not
# stochastic, exact_zeros still holds). Text run: low_precision (float32) +
# fully_forbidden_answered (zeros) at best; the edge rows fit no catalogued family
# (a finite fill followed by a post-softmax zeroing), so "no known mistake" or a
# partial name is expected there. [--precision float32 --fully-forbidden zeros]:
# row_stochastic fails on those edge rows; expected name: none (not catalogued).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scale = np.float32(np.sqrt(q.shape[-1]))
    scores = (q @ k.T) / scale
    if mask is None:
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        w = e / e.sum(axis=-1, keepdims=True)
    else:
        keep = ~np.asarray(mask, bool)
        s = np.where(keep, scores, np.float32(-1e18))
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        w = (e / e.sum(axis=-1, keepdims=True)) * keep.astype(np.float32)
    return w @ v, w
