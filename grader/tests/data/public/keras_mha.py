# Origin: keras-team/keras, keras/src/layers/attention/multi_head_attention.py,
# MultiHeadAttention._compute_attention (the explicit path taken when the scores
# are returned), commit 03ed1b25b572021a2ca1144175fd40d40e49a4ba, and
# keras/src/layers/activations/softmax.py, Softmax.call and _large_negative_number,
# commit 040582fc160b1080954ddc1f554dd70fbbb1da5a (both as stored in the code index).
# Licence: Apache-2.0 (Copyright The Keras team). Not copied: a NumPy reimplementation.
# Arithmetic kept: query * (1/sqrt(key_dim)) cast to float32 BEFORE the product;
# scores = q k^T; Softmax with a keep mask: scores += (1 - keep) * -1e9 (float32);
# stable softmax; scores @ value.
# Changed: keras -> NumPy float32; one head, no projections; the attention_mask
# (true = may attend) built from the mask argument (true = forbidden).
# Expected departures (before running): additive -1e9 (not -inf); a fully
# forbidden row uniform (every logit rounds to -1e9 in float32), not refused;
# float32. With --precision float32: fully_forbidden_refused and exact_zeros fail,
# and (as the Annotated Transformer's -1e9) oracle_agreement and the metamorphic
# properties may fail on rows with allowed logits near -1e9. Expected name:
# finite_fill (-1e9 added).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    q = q * np.float32(1.0 / np.sqrt(float(q.shape[-1])))
    scores = q @ k.T
    if mask is not None:
        keep = (~np.asarray(mask, bool)).astype(np.float32)
        scores = scores + (np.float32(1.0) - keep) * np.float32(-1e9)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    a = e / e.sum(axis=-1, keepdims=True)
    return a @ v, a
