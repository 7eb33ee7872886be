"""float16 storage, float32 accumulation, the mask applied as
masked_fill(-1e9) on the float32 logits: allowed logits below -1e9
(float16 inputs of order 2^15) lose to the forbidden keys."""
# expect-fail: exact_zeros
# zoo-entries: attention:float16/float32
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import checked, to_float16  # noqa: E402


def attention(Q, K, V, mask=None):
    Q, K, V, mask = checked(Q, K, V, mask)
    Q, K, V = (to_float16(M) for M in (Q, K, V))
    S = (Q @ K.T) / np.float32(np.sqrt(Q.shape[1]))
    if mask is not None:
        S = np.where(mask, np.float32(-1e9), S)  # BUG: a finite fill
    E = np.exp(S - S.max(axis=1, keepdims=True))
    Z = E.sum(axis=1, keepdims=True)
    return to_float16((to_float16(E) @ V) / Z), to_float16(E / Z)
