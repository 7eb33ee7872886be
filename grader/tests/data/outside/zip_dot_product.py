# Pure-Python attention from a from-scratch course: lists of rows, a dot()
# helper built on zip(), no NumPy in the arithmetic. zip() stops at the
# shorter row, so Q and K of different widths are silently cut to the
# common width instead of refused. Expected: dk_mismatch_accepted, or no key.
# exercise: F3
import math


def dot(u, v):
    return sum(a * b for a, b in zip(u, v))


def softmax(xs):
    finite = [x for x in xs if x != -math.inf]
    if not finite:
        raise ValueError("softmax over no visible key")
    m = max(finite)
    es = [0.0 if x == -math.inf else math.exp(x - m) for x in xs]
    total = sum(es)
    return [e / total for e in es]


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = Q.tolist(), K.tolist(), V.tolist()
    if len(K) != len(V):
        raise ValueError("need one value per key")
    d_k = len(Q[0])
    weights, out = [], []
    for i, q in enumerate(Q):
        scores = [dot(q, k) / math.sqrt(d_k) for k in K]
        if mask is not None:
            scores = [-math.inf if mask[i][j] else s for j, s in enumerate(scores)]
        w = softmax(scores)
        weights.append(w)
        out.append([sum(w[j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))])
    return out, weights
