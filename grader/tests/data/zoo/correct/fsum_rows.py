"""Every sum over the keys (Z and each entry of O) by math.fsum: the
correctly rounded sum, rounded once more to the arithmetic type."""
# zoo-entries: attention:float64 attention_f32:float32 attention_f16:float16
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import math  # noqa: E402

import numpy as np  # noqa: E402

from zoo_common import entries, with_summation  # noqa: E402


def fsum_rows(X):
    return np.apply_along_axis(math.fsum, -1, X).astype(X.dtype)


attention, attention_f32, attention_f16 = entries(with_summation(fsum_rows))
