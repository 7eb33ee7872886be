# A careful-looking multi-head layer from a course repository: it validates
# the mask up front (shape, a row with nothing to attend to is refused) and
# then runs each head through a shared helper. The helper is called with
# the projections only; the mask checked a few lines above never reaches it.
# Expected: mh_mask_not_forwarded, or no key.
# exercise: M1
import numpy as np


def _head(q, k, v, mask=None):
    s = q @ k.T / np.sqrt(q.shape[1])
    if mask is not None:
        s = np.where(mask, -np.inf, s)
    s = s - s.max(axis=1, keepdims=True)
    w = np.exp(s)
    return (w / w.sum(axis=1, keepdims=True)) @ v


def _validate_mask(mask, T):
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != (T, T):
        raise ValueError("mask must be %d x %d, got %s" % (T, T, mask.shape))
    empty = np.flatnonzero(mask.all(axis=1))
    if empty.size:
        raise ValueError("position %d may attend to nothing" % empty[0])
    return mask


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    X = np.asarray(X, dtype=np.float64)
    T = X.shape[0]
    if mask is not None:
        mask = _validate_mask(mask, T)
    heads = []
    for wq, wk, wv in zip(W_Q, W_K, W_V):
        wq, wk, wv = (np.asarray(w, dtype=np.float64) for w in (wq, wk, wv))
        if wq.shape[1] != wk.shape[1]:
            raise ValueError("query and key widths differ")
        heads.append(_head(X @ wq, X @ wk, X @ wv))
    concat = np.concatenate(heads, axis=1)
    W_O = np.asarray(W_O, dtype=np.float64)
    if W_O.shape[0] != concat.shape[1]:
        raise ValueError("W_O has %d rows for %d concatenated columns" % (W_O.shape[0], concat.shape[1]))
    return concat @ W_O
