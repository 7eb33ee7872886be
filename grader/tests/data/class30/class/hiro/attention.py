import numpy as np

from softmax_utils import apply_mask, stable_softmax


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q, float), np.asarray(K, float), np.asarray(V, float)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError("d_k of Q and K differ")
    if K.shape[0] != V.shape[0]:
        raise ValueError("K and V differ in T_v")
    scores = np.matmul(Q, K.T) / np.sqrt(K.shape[-1])
    weights = stable_softmax(apply_mask(scores, mask))
    return np.matmul(weights, V), weights
