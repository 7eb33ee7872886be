# exercise: F3
# expect-exit: 1
# expect-fail: oracle_agreement
"""Hostile: raises SystemExit and KeyboardInterrupt instead of answering."""
CALLS = []


def scaled_dot_product_attention(Q, K, V, mask=None):
    CALLS.append(1)
    if len(CALLS) % 2:
        raise SystemExit(0)
    raise KeyboardInterrupt
