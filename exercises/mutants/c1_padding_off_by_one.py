# mutant: padding_off_by_one
# exercise: C1
# misconception: the padding mask forbids the keys j > key_length, so the first padding key (index key_length) stays visible.
# violates: the padding mask of section 32.2.4 (keys j >= key_length are padding)
# caught by: padding_mask_matches_definition
# key: padding_off_by_one
# key parameter: offset=+1
import numpy as np


def causal_mask(T_q, T_v, alignment="top_left"):
    offset = T_v - T_q if alignment == "bottom_right" else 0
    return np.arange(T_v)[None, :] > np.arange(T_q)[:, None] + offset


def padding_mask(T_q, T_v, key_length):
    return np.tile(np.arange(T_v) > key_length, (T_q, 1))  # BUG: > instead of >=
