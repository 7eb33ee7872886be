"""Q scaled by 1/sqrt(d_k) (in the arithmetic type) before the product:
S = (Q / sqrt(d_k)) K^T; then the text's softmax."""
# zoo-entries: attention:float64 attention_f32:float32 attention_f16:float16
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import entries, forbid  # noqa: E402


def core(Q, K, V, mask, dt, store):
    S = (Q / dt(np.sqrt(dt(Q.shape[1])))) @ K.T
    S, _ = forbid(S, mask, dt)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = store(E / E.sum(axis=1, keepdims=True))
    return store(A @ V), A


attention, attention_f32, attention_f16 = entries(core)
