# mutant: renormalised_after_zeroing
# exercise: F4
# misconception: the fix keeps the softmax over every key and renormalises after zeroing the forbidden weights: right in exact arithmetic, but a fully forbidden row becomes 0/0 = NaN instead of an error, and a large forbidden logit underflows the allowed weights.
# violates: Lemma 2 and its hypothesis (a row needs an allowed key), section 32.2.4; F2's maximum over the allowed keys
# caught by: fully_forbidden_refused
# key: post_softmax_renormalised
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    if K.shape[1] != Q.shape[1]:
        raise ValueError("d_k mismatch: Q is %s but K is %s" % (Q.shape, K.shape))
    if V.shape[0] != K.shape[0]:
        raise ValueError("K and V differ in row count")
    logits = Q @ K.T / np.sqrt(Q.shape[1])
    E = np.exp(logits - logits.max(axis=1, keepdims=True))  # the maximum over every key
    if mask is not None:
        E = np.where(mask, 0.0, E)
    with np.errstate(invalid="ignore"):
        A = E / E.sum(axis=1, keepdims=True)  # BUG: renormalised after zeroing: 0/0 for an empty row
    return A @ V, A
