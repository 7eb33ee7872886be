"""Every sum over the keys (Z and each entry of O) Kahan-compensated, in
key order, in the arithmetic type."""
# zoo-entries: attention:float64 attention_f32:float32 attention_f16:float16
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import entries, with_summation  # noqa: E402


def kahan(X):
    s = np.zeros(X.shape[:-1], dtype=X.dtype)
    c = np.zeros_like(s)
    for j in range(X.shape[-1]):
        y = X[..., j] - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


attention, attention_f32, attention_f16 = entries(with_summation(kahan))
