"""Exercise F2 (section 32.2.8): the masked, stable softmax, in NumPy. Skeleton.

Write masked_softmax below and fill in answers_skeleton.json (save it as
answers.json), then grade both:
    attnlab grade skeleton.py --answers answers.json
The statement, the answers format and the visible example are in README.md.
As it stands, the skeleton refuses every case, so it fails the properties.
"""

import numpy as np  # noqa: F401  (you will need it)


def masked_softmax(S, mask):
    """S: a T_q x T_v matrix of logits (float64; -inf marks a forbidden key).
    mask: a T_q x T_v boolean array, True = forbidden, or None (no mask).

    Return A, T_q x T_v: the softmax of each row over its allowed keys,
    stable (subtract the row maximum over the ALLOWED keys), exactly 0.0 at
    the forbidden keys. Raise an exception (e.g. ValueError) for a mask of
    the wrong shape and for a row whose every key is forbidden.
    """
    raise NotImplementedError("F2: masked_softmax is not written yet")
