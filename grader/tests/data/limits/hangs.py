# exercise: F3
"""Test fixture: never returns (every case times out)."""

import time


def scaled_dot_product_attention(Q, K, V, mask=None):
    while True:
        time.sleep(0.05)
