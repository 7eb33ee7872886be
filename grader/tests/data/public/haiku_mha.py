# Origin: google-deepmind/dm-haiku, haiku/_src/attention.py, MultiHeadAttention.__call__,
# commit 0c5b4656d22166c1b5660d6e1ee76ab24574149b (as stored in the code index).
# Licence: Apache-2.0 (Copyright 2020 DeepMind Technologies Limited).
# Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: attn_logits = q k^T, then DIVIDED by sqrt(key_size) cast to
# the key dtype (float32); jnp.where(mask, logits, -1e30) with mask true = KEEP;
# jax.nn.softmax (x - max, exp, / sum); weights @ v.
# Changed: jax -> NumPy float32; one head; the linear projections left out
# (identity); the mask argument (true = forbidden) inverted to Haiku's keep mask.
# Expected departures (before running): finite fill -1e30 (Lemma 2 asks -inf):
# a fully forbidden row is uniform, not refused; float32. With --precision
# float32: fully_forbidden_refused fails and, as for the other finite fills,
# exact_zeros fails on the edge cases whose allowed logits lie at or below -1e30
# (-3e38, float lowest). Expected name: finite_fill (fill = -1e30, a value not
# among the listed candidates as far as the README says) + fully_forbidden_answered.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    logits = (q @ k.T) / np.sqrt(q.shape[-1]).astype(np.float32)
    if mask is not None:
        keep = ~np.asarray(mask, bool)
        logits = np.where(keep, logits, np.float32(-1e30))
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
