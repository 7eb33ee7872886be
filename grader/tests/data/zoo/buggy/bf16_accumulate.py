"""Exp values and row sums accumulated in bfloat16 (every partial sum
rounded to bfloat16) while declaring bfloat16 storage with float32
accumulation."""
# expect-fail: oracle_agreement
# zoo-entries: attention:bfloat16/float32
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked, masked_logits, to_bfloat16  # noqa: E402


def attention(Q, K, V, mask=None):
    Q, K, V, mask = checked(Q, K, V, mask)
    Q, K, V = (to_bfloat16(M) for M in (Q, K, V))
    S, _ = masked_logits(Q, K, mask, np.float32)
    E = to_bfloat16(np.exp(S - S.max(axis=1, keepdims=True)))
    Z = np.zeros((S.shape[0], 1), dtype=np.float32)
    for j in range(S.shape[1]):  # BUG: the running sum kept in bfloat16
        Z = to_bfloat16(Z + E[:, j:j + 1])
    A = to_bfloat16(E / Z)
    return to_bfloat16(A @ V), A
