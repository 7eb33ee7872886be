# Origin: d2l-ai/d2l-en, chapter_attention-mechanisms-and-transformers
# (attention-scoring-functions): masked_softmax with _sequence_mask(X, valid_len,
# value=-1e6), and DotProductAttention: scores = Q @ K^T / math.sqrt(d),
# d = queries.shape[-1]; https://github.com/d2l-ai/d2l-en (no commit pinned).
# Licence: the book's code is MIT-0 (text CC BY-SA 4.0). Not copied: a NumPy
# reimplementation of the arithmetic.
# Arithmetic kept: forbidden scores REPLACED by -1e6; softmax; @ V; float32.
# Changed: d2l masks by valid lengths (a key prefix); here the arbitrary mask
# argument (true = forbidden) is filled the same way; returns (O, A).
# Expected departures (before running): finite fill -1e6: forbidden weights are
# exactly 0 in float32 unless logits reach ~1e6; a fully forbidden row (valid_len
# 0) is answered uniform, not refused; float32.
import math
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scores = (q @ k.T) / np.float32(math.sqrt(q.shape[-1]))
    if mask is not None:
        scores = np.where(np.asarray(mask, bool), np.float32(-1e6), scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return p @ v, p
