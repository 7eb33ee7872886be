"""Test fixture: exits with status 3 inside the entry function."""
import os


def scaled_dot_product_attention(Q, K, V, mask=None):
    os._exit(3)
