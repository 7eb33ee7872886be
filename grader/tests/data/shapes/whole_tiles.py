"""A kernel that takes only some shapes, as fast kernels do: head dims 64 or
128, and T_q, T_v multiples of 16 (whole tiles). Any other shape raises.
`attention` is correct on every shape it takes; `attention_drops_last_tile`
is the same kernel with a bug on shapes it takes: from T_v = 32 on, the
last 16-key tile is left out of the softmax.
`attnlab check --head-dims 64,128 --tile-multiple 16` covers only what it
takes: the first passes, the second fails (grader/tests/check_shapes_test.sh)."""
import numpy as np

TILE = 16
HEAD_DIMS = (64, 128)


def _takes(Q, K, V):
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError("shapes do not fit: Q %s, K %s, V %s" % (Q.shape, K.shape, V.shape))
    if Q.shape[1] not in HEAD_DIMS or V.shape[1] not in HEAD_DIMS:
        raise ValueError("head dims must be 64 or 128, got d_k %d, d_v %d" % (Q.shape[1], V.shape[1]))
    if Q.shape[0] % TILE or K.shape[0] % TILE:
        raise ValueError("T_q and T_v must be multiples of %d" % TILE)
    return Q, K, V


def _attention(Q, K, V, mask, keys):
    if mask is not None and np.shape(mask) != (Q.shape[0], K.shape[0]):
        raise ValueError("mask is %s, logits are %s" % (np.shape(mask), (Q.shape[0], K.shape[0])))
    S = Q @ K[:keys].T / np.sqrt(Q.shape[1])
    forbidden = np.zeros(S.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)[:, :keys]
    if forbidden.all(axis=1).any():
        raise ValueError("a query row has every key forbidden")
    S = np.where(forbidden, -np.inf, S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = np.zeros((Q.shape[0], K.shape[0]))
    A[:, :keys] = E / E.sum(axis=1, keepdims=True)
    return A @ V, A


def attention(Q, K, V, mask=None):
    Q, K, V = _takes(Q, K, V)
    return _attention(Q, K, V, mask, K.shape[0])


def attention_drops_last_tile(Q, K, V, mask=None):
    Q, K, V = _takes(Q, K, V)
    keys = K.shape[0] - TILE if K.shape[0] >= 2 * TILE else K.shape[0]
    return _attention(Q, K, V, mask, keys)
