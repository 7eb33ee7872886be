"""T1 (a library operation graded like an exercise, see README.md): tiled
attention with an online softmax, in NumPy. Skeleton.

Write attention_tiled below and the naive attention it is compared with,
then grade it:
    attnlab grade skeleton.py
As it stands, the skeleton refuses every case, so it fails the properties.
"""
# exercise: T1

import numpy as np  # noqa: F401  (you will need it)


def attention(Q, K, V, mask=None):
    """The naive form, F3's contract: returns (O, A)."""
    raise NotImplementedError("T1: attention is not written yet")


def attention_tiled(Q, K, V, mask, tile_q, tile_k):
    """Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v; mask T_q x T_v (True =
    forbidden) or None; tile_q, tile_k >= 1 (a size beyond T means one tile,
    one that does not divide T leaves a shorter last tile).

    Return (O, logsumexp): O as attention(Q, K, V, mask)[0], logsumexp the
    T_q numbers log sum over allowed j of exp(S_ij), S = Q K^T / sqrt(d_k),
    computed tile by tile without forming the whole of S. Raise an exception
    for a query row with every key forbidden.
    """
    raise NotImplementedError("T1: attention_tiled is not written yet")
