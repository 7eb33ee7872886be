# exercise: F3
# expect-exit: 1
# expect-text: RecursionError
"""Hostile: recurses without end on every call."""


def scaled_dot_product_attention(Q, K, V, mask=None):
    return scaled_dot_product_attention(Q, K, V, mask)
