"""Logits rounded to float16 before the softmax while declaring float16 storage
with float32 accumulation (the model keeps S in the accumulation type)."""
# expect-fail: oracle_agreement
# zoo-entries: attention:float16/float32
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked, masked_logits, to_float16  # noqa: E402


def logits_stored(store):
    """The kernel for the 16-bit rounding `store` (logits_bfloat16_declared_f32.py: bfloat16)."""

    def attention(Q, K, V, mask=None):
        Q, K, V, mask = checked(Q, K, V, mask)
        Q, K, V = (store(M) for M in (Q, K, V))
        S, _ = masked_logits(Q, K, mask, np.float32)
        S = store(S)  # BUG: the logits stored in the 16-bit type
        E = np.exp(S - S.max(axis=1, keepdims=True))
        Z = E.sum(axis=1, keepdims=True)
        return store((store(E) @ V) / Z), store(E / Z)

    return attention


attention = logits_stored(to_float16)
