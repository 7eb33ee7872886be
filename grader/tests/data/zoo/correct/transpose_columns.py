"""The softmax taken over the columns of S^T (keys along axis 0, so NumPy
sums them one row after another, not pairwise), then transposed back."""
# zoo-entries: attention:float64 attention_f32:float32 attention_f16:float16
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import entries, masked_logits  # noqa: E402


def core(Q, K, V, mask, dt, store):
    S, _ = masked_logits(Q, K, mask, dt)
    T = np.ascontiguousarray(S.T)
    E = np.exp(T - T.max(axis=0, keepdims=True))
    A = store(np.ascontiguousarray((E / E.sum(axis=0, keepdims=True)).T))
    return store(A @ V), A


attention, attention_f32, attention_f16 = entries(core)
