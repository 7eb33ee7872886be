"""Both C1 functions and no `# exercise:` line: recognised as C1."""
import numpy as np


def causal_mask(T_q, T_v, alignment="top_left"):
    offset = T_v - T_q if alignment == "bottom_right" else 0
    return np.arange(T_v)[None, :] > np.arange(T_q)[:, None] + offset


def padding_mask(T_q, T_v, key_length):
    return np.tile(np.arange(T_v) >= key_length, (T_q, 1))
