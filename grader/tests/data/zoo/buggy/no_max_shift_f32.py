"""float32 softmax without the max shift: exp overflows for logits above
88 (and underflows rows of very negative logits)."""
# expect-fail: oracle_agreement
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
    with np.errstate(over='ignore', invalid='ignore'):
        E = np.exp(S)  # BUG: no shift
        A = E / E.sum(axis=1, keepdims=True)
    return A @ V.astype(f), A
