# A PyTorch user's NumPy version: everything is made float32 up front
# ("torch's default dtype"), so the arithmetic is single precision while
# the submission declares nothing, i.e. float64.
# Expected: low_precision (float32), or no key.
# exercise: F3
import math

import numpy as np

DTYPE = np.float32


def scaled_dot_product_attention(Q, K, V, mask=None):
    q = np.ascontiguousarray(Q, dtype=DTYPE)
    k = np.ascontiguousarray(K, dtype=DTYPE)
    v = np.ascontiguousarray(V, dtype=DTYPE)
    if q.shape[-1] != k.shape[-1] or k.shape[0] != v.shape[0]:
        raise ValueError("shape mismatch: q %s, k %s, v %s" % (q.shape, k.shape, v.shape))
    att = (q @ k.T) * DTYPE(1.0 / math.sqrt(k.shape[-1]))
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.all(axis=-1).any():
            raise ValueError("fully masked query row")
        att[mask] = -np.inf
    att = att - att.max(axis=-1, keepdims=True)
    att = np.exp(att)
    att = att / att.sum(axis=-1, keepdims=True)
    y = att @ v
    return y, att
