"""Test fixture: crashes (SIGABRT) inside the entry function."""
import os


def scaled_dot_product_attention(Q, K, V, mask=None):
    os.abort()
