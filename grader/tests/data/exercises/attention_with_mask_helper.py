"""An F3 file with a causal_mask helper: still F3, not C1."""
import math

import numpy as np


def causal_mask(T_q, T_v):
    return np.triu(np.ones((T_q, T_v), dtype=bool), k=1)


def scaled_dot_product_attention(Q, K, V, mask=None):
    out, weights = [], []
    for i, q in enumerate(Q):
        logits = K @ q / math.sqrt(len(q))
        if mask is not None:
            logits[mask[i]] = -np.inf
        e = np.exp(logits - logits.max())
        weights.append(e / e.sum())
        out.append(weights[-1] @ V)
    return np.array(out), np.array(weights)
