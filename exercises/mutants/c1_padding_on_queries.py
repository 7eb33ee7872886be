# mutant: padding_on_queries
# exercise: C1
# misconception: the padding is applied along the wrong axis: the rows of queries i >= key_length are forbidden instead of the columns of padded keys.
# violates: the padding mask of section 32.2.4 (padding forbids keys, for every query)
# caught by: padding_mask_matches_definition
# key: padding_on_queries
import numpy as np


def causal_mask(T_q, T_v, alignment="top_left"):
    offset = T_v - T_q if alignment == "bottom_right" else 0
    return np.arange(T_v)[None, :] > np.arange(T_q)[:, None] + offset


def padding_mask(T_q, T_v, key_length):
    return np.tile((np.arange(T_q) >= key_length)[:, None], (1, T_v))  # BUG: rows, not columns
