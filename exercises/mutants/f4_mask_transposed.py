# mutant: mask_transposed
# exercise: F4
# misconception: the mask is indexed [key, query] (mask.T is applied), which goes unnoticed with a symmetric mask but forbids the wrong keys otherwise, and breaks when T_q != T_v.
# violates: Lemma 2 (M_ij forbids key j for query i), section 32.2.4
# caught by: exact_zeros
# key: mask_transposed
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    if K.shape[1] != Q.shape[1]:
        raise ValueError("d_k mismatch: Q is %s but K is %s" % (Q.shape, K.shape))
    if V.shape[0] != K.shape[0]:
        raise ValueError("K and V differ in row count")
    logits = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        logits = np.where(mask.T, -np.inf, logits)  # BUG: mask.T, not mask
    if np.isneginf(logits).all(axis=1).any():
        raise ValueError("a query row has every key forbidden")
    E = np.exp(logits - logits.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A
