# Origin: jax-ml/jax, jax/experimental/pallas/ops/gpu/attention.py, mha_reference (the
# plain-jnp reference the Pallas/Triton fused kernel is tested against), commit
# 103fac80073f5eb9f472ac9f43f94f8882fe833e (as stored in the code index); the
# softmax is jax.nn.softmax (jax/_src/nn/functions.py, not read at that commit: its
# max starts from -inf, exp(x - max), divided by the sum, as jax_dot_product_xla.py).
# Licence: Apache-2.0 (Copyright 2023 The JAX Authors).
# Not copied: a NumPy reimplementation of the arithmetic for one head.
# Arithmetic kept: logits = q k^T with preferred_element_type float32; the mask
# (TRUE = KEEP there: segment_mask / tril) applied by where(mask, logits, -inf)
# BEFORE the scale; weights = softmax(logits * sm_scale) with sm_scale's DEFAULT
# 1.0 (no 1/sqrt(d_k)); O = weights @ v in float32.
# Changed: jax -> NumPy float32; one batch, one head; the keep mask is the
# negation of the mask argument (true = forbidden) instead of one built from
# segment_ids and the causal flag (the same where()); jit dropped.
# Expected departures (before running): three. No scaling (sm_scale defaults to
# 1.0; callers pass 1/sqrt(d) themselves); float32; a fully forbidden row is
# all -inf, its max -inf, exp(-inf - -inf) = NaN: answered NaN, not refused.
# Expected names: text: wrong_scale (scale = none) + fully_forbidden_answered
# (NaN) + low_precision (float32) (three composed); own [--precision float32
# --fully-forbidden nan]: wrong_scale (scale = none) on every failure.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    logits = q @ k.T
    if mask is not None:
        keep = ~np.asarray(mask, bool)
        logits = np.where(keep, logits, np.float32(-np.inf))
    x = logits * np.float32(1.0)  # sm_scale default
    with np.errstate(invalid="ignore"):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        w = e / e.sum(axis=-1, keepdims=True)
    return (w @ v).astype(np.float32), w.astype(np.float32)
