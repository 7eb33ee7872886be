# A course repository that keeps one column per query ("alpha[:, i] are the
# weights of query i", as in its lecture notes): the scores are K Q^T, the
# softmax runs down each column, and the weights are returned in that
# layout, keys x queries, instead of the T_q x T_v matrix asked for.
# Expected: transposed_output, or no key.
# exercise: F3
import numpy as np


def column_softmax(E):
    E = E - E.max(axis=0)
    P = np.exp(E)
    return P / P.sum(axis=0)


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    T_q, d_k = Q.shape
    T_v = K.shape[0]
    if K.shape[1] != d_k or V.shape[0] != T_v:
        raise ValueError("incompatible Q, K, V")
    E = K @ Q.T / np.sqrt(d_k)  # (T_v, T_q): column i holds query i's scores
    if mask is not None:
        M = np.asarray(mask, dtype=bool).T
        if M.shape != E.shape:
            raise ValueError("mask must be T_q x T_v")
        E[M] = -np.inf
    if np.isneginf(E).all(axis=0).any():
        raise ValueError("some query sees no key")
    alpha = column_softmax(E)
    context = alpha.T @ V  # (T_q, d_v)
    return context, alpha
