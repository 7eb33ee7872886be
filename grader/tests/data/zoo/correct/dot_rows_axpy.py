"""No GEMM: each row of S by np.dot(K, q), and O = A V accumulated key by
key as a sum of outer products (O += A[:, j] V[j, :]), in key order."""
# zoo-entries: attention:float64 attention_f32:float32 attention_f16:float16
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import entries, forbid  # noqa: E402


def core(Q, K, V, mask, dt, store):
    scale = dt(np.sqrt(dt(Q.shape[1])))
    S = np.stack([np.dot(K, q) / scale for q in Q]).astype(dt)
    S, _ = forbid(S, mask, dt)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = store(E / E.sum(axis=1, keepdims=True))
    O = np.zeros((Q.shape[0], V.shape[1]), dtype=dt)
    for j in range(V.shape[0]):
        O = O + A[:, j:j + 1] * V[j:j + 1, :]
    return store(O), A


attention, attention_f32, attention_f16 = entries(core)
