# mutant: quiet_softmax
# exercise: F3
# misconception: the softmax's denominator gets an extra exp(0 - max), an implicit extra logit 0 (softmax1, "Attention is off by one"), so no row sums to 1.
# violates: Definition 32.2.2 (each row of A sums to 1)
# caught by: row_stochastic
# key: quiet_softmax
# key parameter: a fully forbidden row gives NaN (fitted)
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    m = S.max(axis=1, keepdims=True)
    E = np.exp(S - m)
    A = E / (E.sum(axis=1, keepdims=True) + np.exp(-m))  # BUG: softmax1's extra exp(0 - m)
    return A @ V, A
