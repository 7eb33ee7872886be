"""Exercise F4 (section 32.2.8): a DELIBERATELY WRONG masked attention in
NumPy, kept to show what the grader catches.

The bug: the softmax runs over ALL keys first, and only afterwards are the
forbidden weights set to 0. The denominator still contains the exponentials
of the forbidden keys, so a masked row no longer sums to 1 (in the text's
two-token example with the causal mask, row 0 becomes (0.3302, 0) with sum
0.3302), O is no longer a convex combination of the allowed V rows, and a
row with every key forbidden silently becomes all zeros instead of an error.
The fix is to set forbidden logits to -inf BEFORE the softmax (Lemma 2).

Expected: attnlab grade exercises/F4/post_softmax_mask.py fails the
row_stochastic property (and others). The comment line below tells the
grader this file answers F4 (its function name alone would say F3).
"""
# exercise: F4

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
