# exercise: F3
# expect-exit: 1
# expect-fail: row_stochastic
# expect-fail: oracle_agreement
# expect-fail: exact_zeros
"""Hostile: answers NaN for every entry, with the right shapes.

oracle_agreement charges the NaN (one fault, one charge); row_stochastic
and exact_zeros leave a NaN row or weight to it, so here they judge nothing
and fail on that ("nothing judged"): an answer of NaN earns no points."""
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    T_q, T_v, d_v = len(Q), len(K), np.asarray(V).shape[1]
    return np.full((T_q, d_v), np.nan), np.full((T_q, T_v), np.nan)
