# mutant: post_softmax_mask
# exercise: F4
# misconception: the code F4 starts from: the softmax runs over every key and the forbidden weights are zeroed afterwards, never renormalised, so a masked row sums to less than 1 (0.3302 in the text's example).
# violates: Lemma 2 (mask before the softmax), section 32.2.4; exercise F4
# caught by: row_stochastic
# key: post_softmax_mask
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    if K.shape[1] != Q.shape[1]:
        raise ValueError("d_k mismatch: Q is %s but K is %s" % (Q.shape, K.shape))
    if V.shape[0] != K.shape[0]:
        raise ValueError("K and V differ in row count")
    logits = Q @ K.T / np.sqrt(Q.shape[1])
    # Softmax over every key, the forbidden ones included.
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    weights = shifted / shifted.sum(axis=1, keepdims=True)
    if mask is not None:
        weights = np.where(mask, 0.0, weights)  # WRONG: zeroed after the softmax, not renormalised
    return weights @ V, weights
