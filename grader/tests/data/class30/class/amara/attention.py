# Amara O. -- exercise F3, masked scaled dot-product attention
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q, dtype=np.float64)
    K = np.asarray(K, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    if Q.shape[1] != K.shape[1]:
        raise ValueError(f"d_k mismatch: Q has {Q.shape[1]} columns, K has {K.shape[1]}")
    if K.shape[0] != V.shape[0]:
        raise ValueError("K and V must have the same number of rows")
    d_k = Q.shape[1]
    S = Q @ K.T / np.sqrt(d_k)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != S.shape:
            raise ValueError("mask has the wrong shape")
        if np.any(mask.all(axis=1)):
            raise ValueError("a query row has every key masked")
        S = np.where(mask, -np.inf, S)
    S = S - S.max(axis=1, keepdims=True)
    W = np.exp(S)
    A = W / W.sum(axis=1, keepdims=True)
    O = A @ V
    return O, A


if __name__ == "__main__":
    Q = np.array([[1.0, 0.0], [0.0, 1.0]])
    K = np.array([[1.0, 1.0], [2.0, 0.0]])
    V = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    print(scaled_dot_product_attention(Q, K, V, np.array([[False, True], [False, False]])))
