# exercise: C1
# expect-exit: 1
# expect-text: fixed by the teacher configuration; the file looks like C1
# args: --config @DIR@/f3_only_config.json
"""Hostile: an F3 submission with a marker for the easier exercise C1 and
correct mask builders; the teacher configuration grades F3 only, so it is
graded as F3 (and fails: it defines no attention)."""
import numpy as np


def causal_mask(T_q, T_v, bottom_right=False):
    shift = T_v - T_q if bottom_right else 0
    return np.arange(T_v)[None, :] > np.arange(T_q)[:, None] + shift


def padding_mask(T_q, T_v, key_length):
    return np.broadcast_to(np.arange(T_v)[None, :] >= key_length, (T_q, T_v)).copy()
