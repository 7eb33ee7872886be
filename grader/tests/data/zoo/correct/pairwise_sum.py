"""Every sum over the keys (Z and each entry of O) by recursive halving
(pairwise summation, written out: the halves summed, then added)."""
# zoo-entries: attention:float64 attention_f32:float32 attention_f16:float16
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from zoo_common import entries, with_summation  # noqa: E402


def pairwise(X):
    n = X.shape[-1]
    if n == 1:
        return X[..., 0]
    h = n // 2
    return pairwise(X[..., :h]) + pairwise(X[..., h:])


attention, attention_f32, attention_f16 = entries(with_summation(pairwise))
