"""Every operation rounded to float16 (logits, maximum, exp, sums, P V)
while declaring float16 storage with float32 accumulation."""
# expect-fail: oracle_agreement
# zoo-entries: attention:float16/float32
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked, to_float16  # noqa: E402


def attention(Q, K, V, mask=None):
    Q, K, V, mask = checked(Q, K, V, mask)
    h = np.float16
    Q, K, V = (M.astype(h) for M in (Q, K, V))
    S = (Q @ K.T) / h(np.sqrt(Q.shape[1]))  # BUG: NumPy float16 arithmetic throughout
    if mask is not None:
        S = np.where(mask, h(-np.inf), S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True, dtype=h)
    return (A @ V).astype(np.float64), A.astype(np.float64)
