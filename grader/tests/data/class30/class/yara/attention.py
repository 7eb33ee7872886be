import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    # float32 is what GPUs use, so I compute in float32
    Q = np.asarray(Q, dtype=np.float32)
    K = np.asarray(K, dtype=np.float32)
    V = np.asarray(V, dtype=np.float32)
    if Q.shape[1] != K.shape[1]:
        raise ValueError("d_k mismatch")
    if K.shape[0] != V.shape[0]:
        raise ValueError("T_v mismatch")
    S = Q @ K.T / np.float32(np.sqrt(Q.shape[1]))
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("fully masked row")
        S = np.where(mask, np.float32(-np.inf), S)
    S = S - S.max(axis=1, keepdims=True)
    E = np.exp(S)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A
