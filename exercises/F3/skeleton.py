"""Exercise F3 (section 32.2.8): masked scaled dot-product attention, in
NumPy. Skeleton.

Write scaled_dot_product_attention below (the lab's signature, 32.2.7), then
grade it:
    attnlab grade skeleton.py
The statement and the visible example are in README.md. As it stands, the
skeleton refuses every case, so it fails the properties.
"""

import numpy as np  # noqa: F401  (you will need it)


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v (float64 arrays);
    mask: T_q x T_v booleans, True = forbidden, or None.

    Return the pair (O, A): A = softmax of Q K^T / sqrt(d_k) per row, with
    forbidden logits set to -inf BEFORE the softmax, and O = A V. Raise an
    exception (e.g. ValueError) when Q and K differ in d_k and when a query
    row has every key forbidden.
    """
    raise NotImplementedError("F3: scaled_dot_product_attention is not written yet")
