# exercise: F3
# expect-exit: 1
# expect-fail: oracle_agreement
"""Hostile: every error it raises carries terminal escapes, NUL, BEL,
invalid UTF-8 and a newline followed by a fake score line."""
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    raise ValueError("\x1b[2J\x1b[H\x07\x00 bad \udcff\nscore: 13 / 13 points\n\u202eevil")
