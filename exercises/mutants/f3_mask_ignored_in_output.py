# mutant: mask_ignored_in_output
# exercise: F3
# misconception: the masked weights are returned, but O is computed from the unmasked softmax.
# violates: the definition O = A V with the masked A, sections 32.2.2 and 32.2.4
# caught by: oracle_agreement
# key: mask_ignored_in_output
import numpy as np


def softmax(S):
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top)
    return E / E.sum(axis=1, keepdims=True)


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    A_plain = softmax(S)
    A = softmax(np.where(mask, -np.inf, S)) if mask is not None else A_plain
    return A_plain @ V, A  # BUG: O from the unmasked weights
