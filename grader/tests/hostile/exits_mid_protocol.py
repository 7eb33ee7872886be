# exercise: F3
# expect-exit: 1
# expect-fail: oracle_agreement
"""Hostile: exits the interpreter in the middle of a call."""
import os


def scaled_dot_product_attention(Q, K, V, mask=None):
    os._exit(0)
