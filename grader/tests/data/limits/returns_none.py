# exercise: F3
"""Test fixture: returns None (the harness answers with a "fault" reply)."""


def scaled_dot_product_attention(Q, K, V, mask=None):
    return None
