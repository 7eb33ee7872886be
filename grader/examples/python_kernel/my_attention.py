"""'Your' attention kernel in NumPy, float32: nothing from attnlab."""
import numpy as np


def my_attention(Q, K, V, mask=None):
    """O (T_q x d_v) = softmax(Q K^T / sqrt(d_k)) V; mask (T_q x T_v), True = forbidden.

    Raises ValueError if the shapes do not fit or a query row has no allowed key.
    """
    Q, K, V = (np.asarray(x, dtype=np.float32) for x in (Q, K, V))
    if Q.ndim != 2 or K.ndim != 2 or V.ndim != 2 or K.shape[1] != Q.shape[1] or V.shape[0] != K.shape[0]:
        raise ValueError("my_attention: shapes do not fit")
    logits = (Q @ K.T) / np.float32(np.sqrt(Q.shape[1]))
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != logits.shape:
            raise ValueError("my_attention: the mask's shape does not fit")
        logits = np.where(mask, np.float32(-np.inf), logits)
    top = logits.max(axis=1, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("my_attention: a query row has no allowed key")
    weights = np.exp(logits - top)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ V
