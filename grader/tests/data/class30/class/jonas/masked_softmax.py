# Jonas -- F2
import numpy as np


def masked_softmax(S, mask):
    S = np.asarray(S, dtype=np.float64)
    blocked = np.isneginf(S) if mask is None else (np.asarray(mask, bool) | np.isneginf(S))
    if blocked.shape != S.shape:
        raise ValueError("mask must have the shape of S")
    full = blocked.all(axis=1)
    if full.any():
        raise ValueError(f"row {int(np.argmax(full))} is completely masked")
    logits = np.where(blocked, -np.inf, S)
    m = logits.max(axis=1)[:, None]
    num = np.exp(logits - m)
    return num / num.sum(axis=1)[:, None]
