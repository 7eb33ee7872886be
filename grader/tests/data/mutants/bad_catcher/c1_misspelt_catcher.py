# mutant: misspelt_catcher
# exercise: C1
# misconception: (a catalogue entry whose declared catcher is misspelt, for the test of `attnlab mutants`)
# violates: section 32.2.4
# caught by: causal_mask_matches_defintion
import numpy as np


def causal_mask(T_q, T_v, alignment="top_left"):
    return np.arange(T_v)[None, :] >= np.arange(T_q)[:, None]


def padding_mask(T_q, T_v, key_length):
    return np.tile(np.arange(T_v) >= key_length, (T_q, 1))
