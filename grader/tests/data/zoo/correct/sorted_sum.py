"""Every sum over the keys (Z and each entry of O) one term after another
in ascending order of the terms."""
# zoo-entries: attention:float64 attention_f32:float32 attention_f16:float16
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import entries, with_summation  # noqa: E402


def ascending(X):
    X = np.sort(X, axis=-1)
    s = np.zeros(X.shape[:-1], dtype=X.dtype)
    for j in range(X.shape[-1]):
        s = s + X[..., j]
    return s


attention, attention_f32, attention_f16 = entries(with_summation(ascending))
