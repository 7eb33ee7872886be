# Origin: tracel-ai/burn, crates/burn-nn/src/modules/attention/mha.rs
# (MultiHeadAttention with quiet_softmax = true, min_float = -1.0e4) and
# crates/burn-tensor/src/tensor/activation/base.rs quiet_softmax ("softmax1", Evan
# Miller's "Attention is off by one"), commit 2c06be351006851d42fdb6df16b976f4a82d9747.
# Licence: MIT OR Apache-2.0 (MIT chosen).
# Not copied: a NumPy port of the Rust arithmetic.
# Arithmetic kept: scores = q k^T / sqrt(d_k) (f32); mask_fill(mask true = masked,
# -1e4); quiet_softmax: m = max, e = exp(x - m), weights = e / (sum(e) + exp(-m)),
# i.e. exp(x) / (1 + sum exp(x)); context = weights @ v; float32.
# Changed: as burn_mha.py (one head, no projections, no dropout; returns (O, A)).
# Expected departures (before running): the weights are a softmax with an extra
# zero logit in the denominator, so no row sums to 1 (row_stochastic, textbook,
# oracle and most metamorphic properties fail on ordinary cases; shift_invariance
# must fail: adding c to a row changes exp(-m)); a fully forbidden row: m = -1e4,
# exp(1e4) = inf in float32, weights 0: a zero row, not refused; the finite fill
# -1e4 as burn_mha.py; float32. Expected name: none fits (the off-by-one softmax is
# not catalogued); any name given is expected to be wrong.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scores = (q @ k.T) / np.float32(np.sqrt(np.float32(q.shape[-1])))
    if mask is not None:
        scores = np.where(np.asarray(mask, bool), np.float32(-1.0e4), scores)
    m = scores.max(axis=-1, keepdims=True)
    with np.errstate(over="ignore"):
        e = np.exp(scores - m)
        w = e / (e.sum(axis=-1, keepdims=True) + np.exp(-m))
    return w @ v, w
