# mutant: inverted_mask
# exercise: F3
# misconception: mask true is read as "may attend" (torch.nn.functional.scaled_dot_product_attention's boolean mask), the opposite of the text.
# violates: Lemma 2 (M_ij = 1 iff key j is forbidden), section 32.2.4
# caught by: exact_zeros
# key: inverted_mask
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(~mask, -np.inf, S)  # BUG: polarity inverted
    top = S.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(S - top)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A
