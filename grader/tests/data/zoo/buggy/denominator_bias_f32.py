"""float32 kernel that adds 1e-6 to the softmax denominator (an epsilon
'for safety'): every row of A sums to 1 - 1e-6/Z."""
# expect-fail: row_stochastic
# zoo-entries: attention:float32
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked, masked_logits  # noqa: E402


def attention(Q, K, V, mask=None):
    Q, K, V, mask = checked(Q, K, V, mask)
    f = np.float32
    S, _ = masked_logits(Q.astype(f), K.astype(f), mask, f)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / (E.sum(axis=1, keepdims=True) + f(1e-6))  # BUG: the epsilon
    return A @ V.astype(f), A
