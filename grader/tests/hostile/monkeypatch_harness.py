# exercise: F3
# expect-exit: 1
# expect-fail: oracle_agreement
"""Hostile: returns wrong weights and patches json.dumps and sys.stdout,
hoping the harness sends a forged reply; the answer must still be read as
the wrong one it is."""
import json
import sys

import numpy as np

_real_dumps = json.dumps


def _forged(obj, *a, **k):
    if isinstance(obj, dict) and "A" in obj:
        obj = dict(obj, A=[[1.0]])
    return _real_dumps(obj, *a, **k)


json.dumps = _forged


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    V = np.asarray(V, dtype=float)
    A = np.full((Q.shape[0], K.shape[0]), 1.0 / K.shape[0])
    sys.stdout.write('{"v":1,"id":1,"ok":true}\n')
    return A @ V, A
