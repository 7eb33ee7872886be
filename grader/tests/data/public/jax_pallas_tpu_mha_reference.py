# Origin: jax-ml/jax, jax/experimental/pallas/ops/tpu/flash_attention.py,
# mha_reference_no_custom_vjp (the plain-jnp reference of the TPU flash-attention
# kernel, behind mha_reference) and DEFAULT_MASK_VALUE, commit
# 078fd6872f3eb20f9469776ec9474647b06701f0 (as stored in the code index).
# Licence: Apache-2.0 (Copyright 2023 The JAX Authors).
# Not copied: a NumPy reimplementation of the arithmetic for one head.
# Arithmetic kept (defaults: ab None, attn_logits_soft_cap None, sm_scale 1.0,
# mask_value = DEFAULT_MASK_VALUE = -0.7 * float32 max = -2.3819763e38): logits =
# einsum(q, k) in float32; no scaling (sm_scale == 1.0 skips the multiply); the
# mask (TRUE = KEEP: segment ids equal / col <= row) applied by ADDING
# where(mask, 0.0, mask_value); m = max, unnormalized = exp(logits - m), l = sum,
# weights = unnormalized / l; out = einsum(weights, v).
# Changed: jax -> NumPy float32; one batch, one head; the keep mask is the
# negation of the mask argument (true = forbidden) instead of one built from
# segment ids and the causal flag (the same where()); mha_reference's
# @jax.default_matmul_precision("bfloat16") not modelled (unsure: on a TPU the
# einsums would take bfloat16 passes; on a CPU they stay float32, taken here).
# Expected departures (before running): three. No scaling (scale = none);
# -0.7 float max ADDED (Lemma 2 asks -inf): a fully forbidden row is uniform
# (S - 2.38e38 rounds to -2.38e38 for |S| < 1e31), not refused; allowed logits at
# or below -2.38e38 lose to the forbidden ones; a forbidden logit below about
# -1.02e38 overflows to -inf; float32. Expected names: text: finite_fill (fill =
# -0.7 float max; added and in place are hard to tell apart) + wrong_scale
# (scale = none) + low_precision (float32); own [--precision float32]:
# finite_fill (-0.7 float max) + wrong_scale (scale = none).
import numpy as np

DEFAULT_MASK_VALUE = -0.7 * float(np.finfo(np.float32).max)


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    logits = q @ k.T
    with np.errstate(over="ignore", invalid="ignore"):
        if mask is not None:
            keep = ~np.asarray(mask, bool)
            logits = logits + np.where(keep, np.float32(0.0), np.float32(DEFAULT_MASK_VALUE))
        m = logits.max(axis=-1, keepdims=True)
        unnormalized = np.exp(logits - m)
        weights = unnormalized / unnormalized.sum(axis=-1, keepdims=True)
    return weights @ v, weights
