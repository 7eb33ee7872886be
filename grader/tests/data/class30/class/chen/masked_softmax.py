# F2: masked softmax, written with the log-sum-exp trick
# A = exp((S - m) - log(sum exp(S - m))) row by row, forbidden keys dropped from the sum.
import numpy as np


def log_softmax_rows(X):
    Z = X - np.max(X, axis=1, keepdims=True)
    return Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True))


def masked_softmax(S, mask):
    S = np.array(S, dtype=float)
    forbidden = np.isneginf(S)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != S.shape:
            raise ValueError("mask shape %s does not match S %s" % (mask.shape, S.shape))
        forbidden |= mask
    for i in range(S.shape[0]):
        if forbidden[i].all():
            raise ValueError("row %d: every key is forbidden" % i)
    X = np.where(forbidden, -np.inf, S)
    return np.exp(log_softmax_rows(X))
