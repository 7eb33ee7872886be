# Origin: labmlai/annotated_deep_learning_paper_implementations,
# labml_nn/transformers/mha.py, MultiHeadAttention.forward (scale = 1/sqrt(d_k),
# self.softmax = nn.Softmax(dim=1) over the key axis of scores[i, j, b, h]),
# commit e6b3c8a6a2cdae4071bcde1abeaaf9a2bc37bd53.
# Licence: MIT (Copyright (c) 2020 Varuna Jayasiri).
# Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: scores = einsum('ibhd,jbhd->ijbh', q, k); scores *= 1/sqrt(d_k)
# AFTER the product; masked_fill(mask == 0, -inf) with the mask TRUE = KEEP
# (mask[i, j, b] says query i may see key j); softmax over j (torch,
# max-subtracted); x = einsum('ijbh,jbhd->ibhd', attn, v); float32.
# Changed: torch -> NumPy float32; one head, one batch; no projections, no dropout;
# the mask argument (true = forbidden) inverted to labml's keep mask; returns (O, A).
# Expected departures (before running): float32; a fully forbidden row is the
# softmax of all -inf: NaN, not refused. With --precision float32 --fully-forbidden
# nan: pass. Text run: low_precision (float32) + fully_forbidden_answered (NaN), as
# nanogpt_eager.py.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scores = (q @ k.T) * np.float32(1 / np.sqrt(q.shape[-1]))
    if mask is not None:
        keep = ~np.asarray(mask, bool)
        scores = np.where(keep, scores, np.float32(-np.inf))
    with np.errstate(invalid="ignore"):
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn
