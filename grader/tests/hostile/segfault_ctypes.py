# exercise: F3
# expect-exit: 1
# expect-text: SIGSEGV
"""Hostile: crashes the interpreter with a segmentation fault on every call."""
import ctypes


def scaled_dot_product_attention(Q, K, V, mask=None):
    ctypes.string_at(0)
