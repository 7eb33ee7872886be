# A tf.sequence_mask-style helper ported to NumPy, written for self-attention
# where T_q == T_v: sequence_mask(length, maxlen) marks the valid positions,
# and the padding mask is laid out by repeating it along the second axis.
# The length's positions end up on the query axis (rows i >= key_length
# blocked) instead of the key axis; with T_q == T_v and a symmetric test it
# is easy to miss.
# Expected: padding_on_queries, or no key.
# exercise: C1
import numpy as np


def sequence_mask(length, maxlen):
    """[maxlen] bools, True for positions < length (valid tokens)."""
    return np.arange(maxlen) < length


def causal_mask(T_q, T_v, alignment="top_left"):
    diagonal = 1 + (T_v - T_q if alignment == "bottom_right" else 0)
    return np.triu(np.ones((T_q, T_v), dtype=bool), k=diagonal)


def padding_mask(T_q, T_v, key_length):
    valid = sequence_mask(key_length, T_q)
    return np.repeat(~valid[:, None], T_v, axis=1)
