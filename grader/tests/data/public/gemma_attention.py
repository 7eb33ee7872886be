# Origin: google-deepmind/gemma, gemma/gm/nn/_modules.py, Attention.__call__ (the
# non-GQA path, no cache) and K_MASK, commit 03258cda22988c84733b813f696ac3a83a5a2fd6
# (as stored in the code index).
# Licence: Apache-2.0 (Copyright 2025 DeepMind Technologies Limited).
# Not copied: a NumPy reimplementation of the arithmetic for one head.
# Arithmetic kept: query_scaled = q * query_pre_attn_scalar FIRST (taken as
# head_dim**-0.5, the usual config value; unsure: the scalar is a config field,
# not a default of the module, and one Gemma 2 size uses (embed_dim /
# num_heads)**-0.5); logits = einsum(query_scaled, k); attn_logits_soft_cap
# default None (no tanh cap); padded_logits = where(attn_mask, logits, K_MASK)
# with K_MASK = -2.3819763e38 (= -0.7 * float32 max) and attn_mask TRUE = KEEP;
# probs = jax.nn.softmax(padded_logits) cast to the key dtype (float32 here);
# encoded = probs @ v.
# Changed: jax/flax -> NumPy float32; no projections, RoPE, QK norm, sliding
# window or cache; the keep mask is the negation of the mask argument (true =
# forbidden).
# Expected departures (before running): finite fill -2.38e38 in place (Lemma 2
# asks -inf): a fully forbidden row uniform, not refused; allowed logits at or
# below -2.38e38 lose to it (exact_zeros); q scaled first; float32. Expected
# names: text: finite_fill (fill = -0.7 float max) + low_precision (float32) (as
# jax_dot_product_xla.py; possibly "also consistent with float lowest");
# own [--precision float32]: finite_fill (fill = -0.7 float max).
import numpy as np

K_MASK = np.float32(-2.3819763e38)


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    query_scaled = q * np.float32(q.shape[-1] ** -0.5)
    logits = query_scaled @ k.T
    if mask is not None:
        keep = ~np.asarray(mask, bool)
        logits = np.where(keep, logits, K_MASK)
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    probs = (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)
    return probs @ v, probs
