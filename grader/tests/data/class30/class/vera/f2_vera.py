import numpy as np


def masked_softmax(S, mask):
    # softmax(x)_j = e^{x_j} / sum_k e^{x_k}, forbidden keys contribute e^{-inf} = 0
    S = np.asarray(S, dtype=np.float64)
    forbidden = np.isneginf(S)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != S.shape:
            raise ValueError("the mask must be T_q x T_v")
        forbidden = forbidden | mask
    rows = np.nonzero(forbidden.all(axis=1))[0]
    if rows.size:
        raise ValueError("row %d has no allowed key" % rows[0])
    E = np.where(forbidden, 0.0, np.exp(np.where(forbidden, 0.0, S)))
    return E / E.sum(axis=1, keepdims=True)
