"""Pure Python loops, one scalar operation at a time (math.exp in float64,
NumPy float32 scalars otherwise), every sum in index order."""
# zoo-entries: attention:float64 attention_f32:float32 attention_f16:float16
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import math  # noqa: E402

import numpy as np  # noqa: E402

from zoo_common import allowed_of, entries, finite_logits  # noqa: E402


def weights_row(q, K, allowed, scale, dt, exp):
    s = [dt(0)] * len(K)
    for j, k in enumerate(K):
        acc = dt(0)
        for a, b in zip(q, k):
            acc = acc + a * b
        s[j] = acc / scale if allowed[j] else dt(-math.inf)
    m = max(s)
    e = [exp(x - m) if ok else dt(0) for x, ok in zip(s, allowed)]
    z = dt(0)
    for x in e:
        z = z + x
    return [x / z for x in e], s


def core(Q, K, V, mask, dt, store):
    cast = float if dt is np.float64 else dt
    exp = math.exp if dt is np.float64 else np.exp
    allowed = allowed_of(mask, Q.shape[0], K.shape[0])
    q_rows = [[cast(x) for x in row] for row in Q]
    k_rows = [[cast(x) for x in row] for row in K]
    A = np.zeros((Q.shape[0], K.shape[0]), dtype=dt)
    S = np.zeros_like(A)
    scale = cast(math.sqrt(Q.shape[1])) if dt is np.float64 else dt(np.sqrt(dt(Q.shape[1])))
    for i, q in enumerate(q_rows):
        A[i], S[i] = weights_row(q, k_rows, allowed[i], scale, cast, exp)
        finite_logits(S[i:i + 1], allowed[i:i + 1])
    A = store(A)
    O = np.zeros((Q.shape[0], V.shape[1]), dtype=dt)
    for i in range(A.shape[0]):
        for col in range(V.shape[1]):
            acc = cast(0)
            for j in range(A.shape[1]):
                acc = acc + cast(A[i, j]) * cast(V[j, col])
            O[i, col] = acc
    return store(O), A


attention, attention_f32, attention_f16 = entries(core)
