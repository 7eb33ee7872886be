# Building the masks with np.triu and an explicit diagonal offset, the way a
# "masks in attention, explained" notebook does: the offset k of np.triu
# moves the diagonal right by T_v - T_q for the bottom-right (KV-cache)
# alignment. np.triu keeps the diagonal itself, and k was left at that
# offset instead of offset + 1, so every query is also blocked from its own
# position.
# Expected: diagonal_forbidden, or no key.
# exercise: C1
import numpy as np


def causal_mask(T_q, T_v, alignment="top_left"):
    if alignment == "top_left":
        offset = 0
    elif alignment == "bottom_right":
        offset = T_v - T_q
    else:
        raise ValueError(f"alignment must be top_left or bottom_right, not {alignment!r}")
    future = np.triu(np.ones((T_q, T_v), dtype=bool), k=offset)
    return future


def padding_mask(T_q, T_v, key_length):
    keys = np.arange(T_v)[None, :]
    return np.repeat(keys >= key_length, T_q, axis=0)
