# Origin: google/trax, trax/layers/attention.py _per_head_attention (the arithmetic of
# DotProductAttention), commit 7c189c2c3a37851df7fc641b322a99bbe9f8aa10; the softmax
# written as exp(dots - logsumexp(dots)) with fastmath.logsumexp =
# jax.scipy.special.logsumexp (max-shifted: max + log(sum(exp(x - max)))).
# Licence: Apache-2.0.
# Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: dots = q k^T / sqrt(d_feature) (float32); jnp.where(mask, dots,
# -1e9) with the mask TRUE = KEEP; weights = exp(dots - lse), lse = m + log(sum
# exp(dots - m)), m the row max (0 if not finite); activations = weights @ v; float32.
# Changed: jax -> NumPy float32; one head; no dropout (eval mode); the mask argument
# (true = forbidden) inverted to Trax's keep mask; returns (O, A).
# Expected departures (before running): finite fill -1e9; float32; a fully forbidden
# row: every dot is -1e9, lse = -1e9 + log(n) rounds to -1e9 in float32 (ulp 64), so
# every weight is exp(0) = 1: a row of ONES (sum n), not uniform and not refused;
# exact_zeros fails on the edge cases at or below -1e9. Expected name: finite_fill
# (fill = -1e9) on the valid cases, but the fully forbidden row's answer (ones)
# matches no fully_forbidden_answered member (NaN, zeros, uniform): expected "no
# known mistake" or a name for part of the failures; a full-row name of "uniform"
# would be wrong.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    dots = (q @ k.T) / np.float32(np.sqrt(np.float32(q.shape[-1])))
    if mask is not None:
        keep = ~np.asarray(mask, bool)
        dots = np.where(keep, dots, np.float32(-1e9))
    m = dots.max(axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, np.float32(0))
    lse = np.log(np.exp(dots - m).sum(axis=-1, keepdims=True)) + m
    w = np.exp(dots - lse)
    return w @ v, w
