import numpy as np


def masked_softmax(S, mask):
    """Rania -- F2. mask = 1 where the key is kept."""
    S = np.asarray(S, dtype=np.float64)
    keep = ~np.isneginf(S)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != S.shape:
            raise ValueError("mask and S differ in shape")
        keep = keep & mask
    if (~keep).all(axis=1).any():
        raise ValueError("a row keeps no key")
    X = np.where(keep, S, -np.inf)
    X = X - X.max(axis=1, keepdims=True)
    E = np.exp(X)
    return E / E.sum(axis=1, keepdims=True)
