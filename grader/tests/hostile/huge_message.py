# exercise: F3
# expect-exit: 1
# expect-fail: oracle_agreement
"""Hostile: raises an error with a 5 MB message on every call (75 times
the most an answer to the small cases can take, so every call still ends
at that size; each such call restarts the harness, and the message's size
is most of what it costs)."""
BIG = "x" * (5 << 20)


def scaled_dot_product_attention(Q, K, V, mask=None):
    raise ValueError(BIG)
