# exercise: F3
# expect-exit: 1
# expect-fail: row_stochastic
# expect-fail: oracle_agreement
"""Hostile: answers NaN for every entry, with the right shapes."""
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    T_q, T_v, d_v = len(Q), len(K), np.asarray(V).shape[1]
    return np.full((T_q, d_v), np.nan), np.full((T_q, T_v), np.nan)
