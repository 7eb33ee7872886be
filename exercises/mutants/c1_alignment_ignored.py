# mutant: alignment_ignored
# exercise: C1
# misconception: the causal mask is always aligned top-left (j > i), also when bottom-right is asked: right in training where T_q == T_v, wrong when decoding T_q new tokens against a cache of T_v - T_q earlier keys.
# violates: the causal mask of section 32.2.4 with a key cache (bottom-right: the last query sees every key)
# caught by: causal_mask_matches_definition
# key: causal_alignment
# key parameter: alignment=always top-left
import numpy as np


def causal_mask(T_q, T_v, alignment="top_left"):
    return np.arange(T_v)[None, :] > np.arange(T_q)[:, None]  # BUG: the alignment is not used


def padding_mask(T_q, T_v, key_length):
    return np.tile(np.arange(T_v) >= key_length, (T_q, 1))
