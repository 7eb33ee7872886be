# Mask helpers as a GPT-from-scratch tutorial writes them: the causal mask is
# np.triu(ones, k=1) (strictly above the diagonal = future = blocked), and a
# padding mask from the true length. The alignment argument was added for
# an API and is accepted, but the tutorial's mask is top-left whatever is
# asked: during KV-cache decoding (T_q < T_v, alignment "bottom_right") the
# new queries cannot see the most recent cached keys.
# Expected: causal_alignment, or no key.
# exercise: C1
import numpy as np


def causal_mask(T_q, T_v, alignment="top_left"):
    """True above the diagonal: position i must not look at j > i."""
    if alignment not in ("top_left", "bottom_right"):
        raise ValueError("unknown alignment %r" % (alignment,))
    return np.triu(np.ones((T_q, T_v), dtype=bool), k=1)


def padding_mask(T_q, T_v, key_length):
    """True on the padded key positions (index >= key_length)."""
    if not 0 <= key_length <= T_v:
        raise ValueError("key_length out of range")
    is_pad = np.arange(T_v) >= key_length
    return np.broadcast_to(is_pad, (T_q, T_v)).copy()
