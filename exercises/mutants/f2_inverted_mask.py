# mutant: inverted_mask
# exercise: F2
# misconception: mask true is read as "may attend" (torch.nn.functional.scaled_dot_product_attention's boolean mask), the opposite of the text.
# violates: Lemma 2 (M_ij = 1 iff key j is forbidden), section 32.2.4
# caught by: exact_zeros
# key: inverted_mask
import numpy as np


def masked_softmax(S, mask):
    if mask is None:  # no mask: every key allowed (F2's contract)
        mask = np.zeros(S.shape, dtype=bool)
    T = np.where(~mask, -np.inf, S)  # BUG: polarity inverted
    top = T.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a row has every key forbidden")
    E = np.exp(T - top)
    return E / E.sum(axis=1, keepdims=True)
