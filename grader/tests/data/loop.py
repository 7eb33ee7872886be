"""Test fixture: never returns from the entry function."""


def scaled_dot_product_attention(Q, K, V, mask=None):
    while True:
        pass
