"""Logits rounded to float16 before the softmax while declaring float16 storage
with float32 accumulation (the model keeps S in the accumulation type)."""
# expect-fail: oracle_agreement
# zoo-entries: attention:float16/float32
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked, masked_logits, to_float16  # noqa: E402


def attention(Q, K, V, mask=None):
    Q, K, V, mask = checked(Q, K, V, mask)
    Q, K, V = (to_float16(M) for M in (Q, K, V))
    S, _ = masked_logits(Q, K, mask, np.float32)
    S = to_float16(S)  # BUG: the logits stored in float16
    E = np.exp(S - S.max(axis=1, keepdims=True))
    Z = E.sum(axis=1, keepdims=True)
    return to_float16((to_float16(E) @ V) / Z), to_float16(E / Z)
