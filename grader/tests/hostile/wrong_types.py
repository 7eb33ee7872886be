# exercise: F3
# expect-exit: 1
# expect-fail: score_shape
"""Hostile: answers with strings, nested junk and None in turn."""
import itertools

ANSWERS = itertools.cycle([("O", "A"), ([[["deep"]]], {"a": 1}), None, (1, 2, 3), "text"])


def scaled_dot_product_attention(Q, K, V, mask=None):
    return next(ANSWERS)
