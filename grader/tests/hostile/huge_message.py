# exercise: F3
# expect-exit: 1
# expect-fail: oracle_agreement
"""Hostile: raises an error with a 50 MB message on every call."""
BIG = "x" * (50 << 20)


def scaled_dot_product_attention(Q, K, V, mask=None):
    raise ValueError(BIG)
