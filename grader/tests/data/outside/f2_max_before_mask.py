# A masked softmax from a tutorial on numerical stability: the row maximum
# is taken first, over the raw logits, and only then are the hidden keys
# left out of the exponentials. A hidden logit far above the visible ones
# flushes them all to 0 (0/0). Expected: max_over_forbidden, or no key
# (never post_softmax_renormalised: a row with every key hidden is refused).
import numpy as np


def masked_softmax(S, mask):
    S = np.asarray(S, dtype=np.float64)
    hidden = np.isneginf(S)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != S.shape:
            raise ValueError(f"mask has shape {mask.shape}, logits {S.shape}")
        hidden = hidden | mask
    empty = hidden.all(axis=1)
    if empty.any():
        raise ValueError(f"row {int(np.argmax(empty))} has no visible key")
    row_max = S.max(axis=1, keepdims=True)  # the stability trick
    with np.errstate(invalid="ignore"):
        num = np.where(hidden, 0.0, np.exp(S - row_max))
        return num / num.sum(axis=1, keepdims=True)
