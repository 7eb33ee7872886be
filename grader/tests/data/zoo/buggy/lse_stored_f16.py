"""float16 storage, float32 accumulation, the logsumexp stored in float16
before A = exp(S - lse): an error of |lse| 2^-11 in every exponent."""
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
    m = S.max(axis=1, keepdims=True)
    lse = to_float16(m + np.log(np.exp(S - m).sum(axis=1, keepdims=True)))  # BUG
    A = to_float16(np.exp(S - lse))
    return to_float16(A @ V), A
