"""Test fixture: a syntax error; the submission is not gradable."""


def scaled_dot_product_attention(Q, K, V, mask=None)
    return Q, K
