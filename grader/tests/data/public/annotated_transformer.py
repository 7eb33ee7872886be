# Origin: harvardnlp/annotated-transformer, the `attention` function
# (AnnotatedTransformer / the_annotated_transformer.py),
# https://github.com/harvardnlp/annotated-transformer (no commit pinned).
# Licence: MIT. Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: d_k = query.size(-1); scores = q @ k^T / math.sqrt(d_k);
# scores = scores.masked_fill(mask == 0, -1e9); p = scores.softmax(dim=-1);
# return p @ v, p; float32.
# Changed: torch -> NumPy float32; mask == 0 (keep convention) becomes the mask
# argument true = forbidden; no dropout.
# Expected departures (before running): finite fill -1e9: forbidden weights are
# exp(-1e9 - max) = exactly 0 in float32 for ordinary logits, but a fully
# forbidden row is answered uniform (mean of V), not refused; float32.
import math
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    d_k = q.shape[-1]
    scores = (q @ k.T) / np.float32(math.sqrt(d_k))
    if mask is not None:
        scores = np.where(np.asarray(mask, bool), np.float32(-1e9), scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return p @ v, p
