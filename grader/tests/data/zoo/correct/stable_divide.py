"""The text's stable softmax (section 32.2.4): the row maximum over the
allowed keys, exp(S - m), the row sum Z, then A = E / Z and O = A V."""
# zoo-entries: attention:float64 attention_f32:float32 attention_f16:float16
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import entries, masked_logits  # noqa: E402


def core(Q, K, V, mask, dt, store):
    S, _ = masked_logits(Q, K, mask, dt)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = store(E / E.sum(axis=1, keepdims=True))
    return store(A @ V), A


attention, attention_f32, attention_f16 = entries(core)
