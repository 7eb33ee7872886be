"""Everything in np.longdouble (x87 80-bit on x86-64), rounded to the
entry's type only at the end (and the weights to float16 before P V in
the 16-bit entry)."""
# zoo-entries: attention:float64 attention_f32:float32 attention_f16:float16
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import entries, keep, masked_logits  # noqa: E402


def core(Q, K, V, mask, dt, store):
    L = np.longdouble
    S, _ = masked_logits(Q.astype(L), K.astype(L), mask, L)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    P = A if store is keep else np.asarray(store(A.astype(dt)), dtype=L)
    return store((P @ V.astype(L)).astype(dt)), store(A.astype(dt))


attention, attention_f32, attention_f16 = entries(core)
