# exercise: F3
# expect-exit: 1
# expect-text: timed out
# args: --timeout 1 --submission-timeout 6
"""Hostile: never returns; every property stops at the timeout cap and
the whole submission at its time budget."""


def scaled_dot_product_attention(Q, K, V, mask=None):
    while True:
        pass
