# Origin: keras-team/keras, keras/src/layers/attention/attention.py, Attention
# (Luong dot-product) with score_mode="dot", use_scale=False (the defaults), and
# its _apply_scores: scores -= 1e9 * padding_mask (as read; no commit pinned;
# the -1e9 constant for float32 is not verified against a stored copy).
# Licence: Apache-2.0 (Copyright The Keras team). Not copied: a NumPy reimplementation.
# Arithmetic kept: scores = q @ k^T with NO 1/sqrt(d_k) (use_scale=False);
# scores -= 1e9 * forbidden (additive); softmax; weights @ v; float32.
# Changed: keras -> NumPy float32; the value mask generalised to the mask argument.
# Expected departures (before running): no scaling at all (scale 1, not
# 1/sqrt(d_k)); additive -1e9; a fully forbidden row uniform, not refused;
# float32. Expect failures of oracle_agreement and fully_forbidden_refused even
# with --precision float32.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    s = q @ k.T
    if mask is not None:
        s = s - np.float32(1e9) * np.asarray(mask, bool).astype(np.float32)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    a = e / e.sum(axis=-1, keepdims=True)
    return a @ v, a
