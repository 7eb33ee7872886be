"""Exercise F1 (section 32.2.8): the row-wise softmax, in NumPy. Skeleton.

Write softmax_rows below, then grade it:
    attnlab grade skeleton.py            (recognised as F1 by the function name)
The statement, the rules for -inf and the visible example are in README.md.
As it stands, the skeleton refuses every case, so it fails the properties.
"""

import numpy as np  # noqa: F401  (you will need it)


def softmax_rows(S):
    """S: a T_q x T_v matrix of logits (a NumPy float64 array; -inf marks a
    forbidden key). Return A, T_q x T_v, with
        A[i, j] = exp(S[i, j]) / sum over j' of exp(S[i, j'])
    computed stably. Raise an exception (e.g. ValueError) for a row whose
    every logit is -inf.
    """
    raise NotImplementedError("F1: softmax_rows is not written yet")
