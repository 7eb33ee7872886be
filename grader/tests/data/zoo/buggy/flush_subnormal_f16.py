"""float16 storage with float32 accumulation, but weights below float16's
smallest normal (2^-14) flushed to zero when stored (no gradual
underflow: outside the model, reference/TOLERANCE.md (3'))."""
# expect-fail: oracle_agreement
# zoo-entries: attention:float16/float32
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked, masked_logits, to_float16  # noqa: E402


def flush(x):
    x = to_float16(x)
    return np.where(np.abs(x) < 2.0 ** -14, np.float32(0), x)  # BUG: flush to zero


def attention(Q, K, V, mask=None):
    Q, K, V, mask = checked(Q, K, V, mask)
    Q, K, V = (to_float16(M) for M in (Q, K, V))
    S, _ = masked_logits(Q, K, mask, np.float32)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    Z = E.sum(axis=1, keepdims=True)
    return to_float16((flush(E) @ V) / Z), flush(E / Z)
