import numpy as np

NEG_INF = -1e9  # large negative number instead of -inf (avoids nan)


def scaled_dot_product_attention(Q, K, V, mask=None):
    if Q.shape[1] != K.shape[1]:
        raise ValueError("d_k of Q and K differ")
    if K.shape[0] != V.shape[0]:
        raise ValueError("K and V differ in length")
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        if np.any(np.all(mask, axis=1)):
            raise ValueError("fully masked query row")
        S = np.where(mask, NEG_INF, S)
    S = S - np.max(S, axis=1, keepdims=True)
    A = np.exp(S)
    A = A / np.sum(A, axis=1, keepdims=True)
    return A @ V, A
