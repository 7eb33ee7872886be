"""float16 storage with float32 accumulation declared, but the row sum Z
is a float16 running sum over the keys (its error grows with T_v)."""
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
    P = to_float16(np.exp(S - S.max(axis=1, keepdims=True)))
    Z = np.zeros((S.shape[0], 1), dtype=np.float32)
    for j in range(S.shape[1]):
        Z = to_float16(Z + P[:, j:j + 1])  # BUG: the running sum in float16
    A = to_float16(P / Z)
    return to_float16((P @ V) / Z), A
