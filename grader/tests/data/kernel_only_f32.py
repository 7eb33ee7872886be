"""A kernel file whose one function has its own name (not one attnlab
looks for): `attnlab check` must list it and suggest --entry."""
import numpy as np


def attention_f32(Q, K, V, mask=None):
    Q, K, V = (np.asarray(M, dtype=np.float32) for M in (Q, K, V))
    S = Q @ K.T / np.float32(np.sqrt(Q.shape[1]))
    if mask is not None:
        S = np.where(mask, np.float32(-np.inf), S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return (A @ V).astype(np.float64), A.astype(np.float64)
