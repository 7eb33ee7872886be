# mutant: diagonal_forbidden
# exercise: C1
# misconception: the causal mask forbids j >= i, so a query may not attend to its own key (numpy.triu(ones) without k=1); the first query is left with no key at all.
# violates: the causal mask of section 32.2.4 (only the keys after query i are forbidden)
# caught by: causal_mask_matches_definition
# key: diagonal_forbidden
import numpy as np


def causal_mask(T_q, T_v, alignment="top_left"):
    offset = T_v - T_q if alignment == "bottom_right" else 0
    return np.arange(T_v)[None, :] >= np.arange(T_q)[:, None] + offset  # BUG: >= instead of >


def padding_mask(T_q, T_v, key_length):
    return np.tile(np.arange(T_v) >= key_length, (T_q, 1))
