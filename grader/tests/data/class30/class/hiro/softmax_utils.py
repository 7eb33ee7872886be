"""Helpers for my attention homework (Hiro)."""
import numpy as np


def apply_mask(S, mask):
    """Forbidden (True) logits become -inf."""
    if mask is None:
        return S
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != S.shape:
        raise ValueError("mask shape mismatch")
    bad_rows = np.where(mask.all(axis=1))[0]
    if len(bad_rows) > 0:
        raise ValueError(f"rows {bad_rows.tolist()} have no allowed key")
    return np.where(mask, -np.inf, S)


def stable_softmax(S):
    shifted = S - np.max(S, axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=-1, keepdims=True)
