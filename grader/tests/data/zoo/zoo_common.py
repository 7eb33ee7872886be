"""What every zoo kernel shares: the conventions of attention kernels for
`attnlab check` (grader/PROTOCOL.md, "Kernels for attnlab check"), kept out
of the members so that each member differs from the others only in the
order of its arithmetic.

- checked(): refuses what the text refuses (section 32.2.7): a d_k
  mismatch, K and V of different lengths, a mask that is not T_q x T_v, a
  NaN or Inf input, a query row whose every key is forbidden (mask true =
  forbidden), all with ValueError.
- entries(core): the three entries of a member from its core
  core(Q, K, V, mask, dt, store) -> (O, A):
    attention      float64 arithmetic, no storage rounding;
    attention_f32  float32 arithmetic, no storage rounding;
    attention_f16  float16 storage with float32 accumulation, the model of
                   reference/TOLERANCE.md ("Storage and accumulation
                   types"): the core computes in float32 and calls store()
                   on the weights P before P V and on the returned A and O.
- to_float16 / to_bfloat16: round-to-nearest-even into the 16-bit type,
  returned as float32 values (bfloat16 by rounding the float32 bits).
"""
import numpy as np


def checked(Q, K, V, mask):
    """Q, K, V as float64 arrays and the mask as bool (or None); raises
    ValueError for what the text refuses."""
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    if Q.ndim != 2 or K.ndim != 2 or V.ndim != 2:
        raise ValueError("Q, K and V must be matrices")
    if Q.shape[1] != K.shape[1]:
        raise ValueError("d_k mismatch: Q has %d columns, K has %d" % (Q.shape[1], K.shape[1]))
    if K.shape[0] != V.shape[0]:
        raise ValueError("K has %d rows but V has %d" % (K.shape[0], V.shape[0]))
    for name, M in (("Q", Q), ("K", K), ("V", V)):
        if not np.isfinite(M).all():
            raise ValueError("%s holds NaN or Inf" % name)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (Q.shape[0], K.shape[0]):
            raise ValueError("the mask is %s, not T_q x T_v" % (mask.shape,))
        if mask.all(axis=1).any():
            raise ValueError("query row %d has every key forbidden" % int(np.argmax(mask.all(axis=1))))
    return Q, K, V, mask


def allowed_of(mask, T_q, T_v):
    """The allowed entries (True = may attend), T_q x T_v."""
    return np.ones((T_q, T_v), dtype=bool) if mask is None else ~mask


def finite_logits(S, allowed):
    """S unchanged; raises ValueError when an allowed logit overflowed to
    +-Inf or NaN in the arithmetic type (the oracle refuses those too)."""
    bad = allowed & ~np.isfinite(S)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError("the logit S(%d, %d) overflows the arithmetic type" % (i, j))
    return S


def keep(x):
    """No storage rounding (float64 and float32 entries)."""
    return x


def to_float16(x):
    """x rounded to float16 (IEEE round to nearest even, gradual underflow), as float32."""
    return np.asarray(x, dtype=np.float32).astype(np.float16).astype(np.float32)


def to_bfloat16(x):
    """x rounded to bfloat16 (nearest even on the float32 bits), as float32."""
    b = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    r = (b + np.uint32(0x7FFF) + ((b >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    return r.view(np.float32)


def entries(core):
    """(attention, attention_f32, attention_f16) for a core(Q, K, V, mask, dt, store)."""

    def attention(Q, K, V, mask=None):
        Q, K, V, mask = checked(Q, K, V, mask)
        return core(Q, K, V, mask, np.float64, keep)

    def attention_f32(Q, K, V, mask=None):
        Q, K, V, mask = checked(Q, K, V, mask)
        f = np.float32
        return core(Q.astype(f), K.astype(f), V.astype(f), mask, f, keep)

    def attention_f16(Q, K, V, mask=None):
        Q, K, V, mask = checked(Q, K, V, mask)
        h = [to_float16(M) for M in (Q, K, V)]  # the inputs are float16 values
        return core(h[0], h[1], h[2], mask, np.float32, to_float16)

    return attention, attention_f32, attention_f16


def forbid(S, mask, dt):
    """(S with forbidden entries -inf, the allowed entries); refuses an
    allowed logit that overflowed (finite_logits)."""
    allowed = allowed_of(mask, S.shape[0], S.shape[1])
    finite_logits(S, allowed)
    return np.where(allowed, S, dt(-np.inf)).astype(dt), allowed


def masked_logits(Q, K, mask, dt):
    """S = Q K^T / sqrt(d_k) in dt (GEMM, then the scale), forbidden entries -inf."""
    return forbid((Q @ K.T) / dt(np.sqrt(dt(Q.shape[1]))), mask, dt)


def with_summation(rowsum):
    """The core of the text's softmax (row maximum, exp, A = E / Z) in
    which every sum over the keys, Z and each entry of O = A V, is
    rowsum(X): X summed over its last axis in the member's order, returned
    in X's dtype."""

    def core(Q, K, V, mask, dt, store):
        S, _ = masked_logits(Q, K, mask, dt)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        A = store(E / rowsum(E)[:, None])
        products = A[:, None, :] * V.T[None, :, :]  # (i, l, j): A_ij V_jl
        return store(rowsum(products)), A

    return core
