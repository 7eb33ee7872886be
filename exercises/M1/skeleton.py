"""M1 (a library operation graded like an exercise, see README.md):
multi-head self-attention in NumPy. Skeleton.

Write multi_head_attention below, then grade it:
    attnlab grade skeleton.py
As it stands, the skeleton refuses every case, so it fails the properties.
"""
# exercise: M1

import numpy as np  # noqa: F401  (you will need it)


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    """X: T x d_model. W_Q, W_K, W_V: lists of h matrices, head i at index i
    (W_Q[i], W_K[i]: d_model x d_k; W_V[i]: d_model x d_v). W_O: h d_v x d_out.
    mask: T x T bools (True = forbidden) or None.

    Return O = [O_1, ..., O_h] W_O (T x d_out), where O_i is the F3 attention
    of X W_Q[i], X W_K[i], X W_V[i] under the mask. Raise an exception for a
    query row with every key forbidden.
    """
    raise NotImplementedError("M1: multi_head_attention is not written yet")
