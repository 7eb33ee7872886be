# Masks from a data-loading utility that thinks in 1-based token positions
# (position p = j + 1, "the first key_length tokens are real"): a position
# is padding once it reaches the length. With 1-based positions the test
# should be p > key_length; p >= key_length also blocks the last real key.
# The causal mask is built from the index grid and is right.
# Expected: padding_off_by_one, or no key.
# exercise: C1
import numpy as np


def causal_mask(T_q, T_v, alignment="top_left"):
    shift = T_v - T_q if alignment == "bottom_right" else 0
    if alignment not in ("top_left", "bottom_right"):
        raise ValueError("bad alignment")
    q_idx = np.arange(T_q)[:, None]
    k_idx = np.arange(T_v)[None, :]
    return k_idx > q_idx + shift


def padding_mask(T_q, T_v, key_length):
    positions = np.arange(1, T_v + 1)        # 1-based token positions
    is_padding = positions >= key_length
    return np.tile(is_padding, (T_q, 1))
