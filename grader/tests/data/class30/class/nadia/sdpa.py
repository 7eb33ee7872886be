import numpy as np

def scaled_dot_product_attention(Q, K, V, mask=None):
    # check shapes
    if Q.shape[1] != K.shape[1]:
        raise ValueError("d_k mismatch")
    if K.shape[0] != V.shape[0]:
        raise ValueError("T_v mismatch")
    # scores
    S = np.dot(Q, K.T)
    # mask
    if mask is not None:
        for i in range(S.shape[0]):
            if np.all(mask[i]):
                raise ValueError("row %d is fully masked" % i)
        S = np.where(mask, -np.inf, S)
    # softmax (stable)
    S = S - np.max(S, axis=1, keepdims=True)
    E = np.exp(S)
    A = E / np.sum(E, axis=1, keepdims=True)
    return np.dot(A, V), A
