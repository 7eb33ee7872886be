# From a course notebook: "softmax first, then keep only the visible keys and
# renormalise so each row is a distribution again". Mathematically that is
# the masked softmax, but the exponentials are shifted by the maximum over
# every key: a large hidden logit flushes the visible ones to 0, and a row
# with nothing visible divides 0 by 0.
# Expected: post_softmax_renormalised, or no key (never max_over_forbidden,
# which refuses that row).
# exercise: F3
import numpy as np


def softmax(z):
    z = z - z.max(axis=1)[:, np.newaxis]
    ez = np.exp(z)
    return ez / ez.sum(axis=1)[:, np.newaxis]


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    V = np.asarray(V, dtype=float)
    n_q, d_k = Q.shape
    n_k = K.shape[0]
    shapes_fit = K.shape[1] == d_k and V.shape[0] == n_k
    if not shapes_fit:
        raise ValueError("Q: %s, K: %s, V: %s do not fit" % (Q.shape, K.shape, V.shape))
    alpha = softmax(np.dot(Q, K.T) / np.sqrt(d_k))
    if mask is not None:
        visible = np.logical_not(mask).astype(float)
        alpha = alpha * visible
        alpha = alpha / alpha.sum(axis=1)[:, np.newaxis]  # renormalise
    context = np.dot(alpha, V)
    return context, alpha
