# Origin: patrick-kidger/equinox, equinox/nn/_attention.py,
# dot_product_attention_weights and dot_product_attention,
# commit 9336d820b2ef66b360fc6cb3611b3da5cefbb14d.
# Licence: Apache-2.0.
# Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: query DIVIDED by sqrt(qk_size) BEFORE the product (float32);
# logits = einsum(q, k); jnp.where(mask, logits, finfo(float32).min) with the mask
# TRUE = KEEP; jax.nn.softmax in float32 (x - max, exp, / sum); weights @ value.
# Changed: jax -> NumPy float32; one head, no projections; no dropout; the mask
# argument (true = forbidden) inverted to Equinox's keep mask; returns (O, A).
# Expected departures (before running): finite fill at float32's lowest value
# (-3.4028235e38); a fully forbidden row is uniform, not refused; float32. Same
# arithmetic class as latent_diffusion_crossattn.py and mlx_ref_attn.py: expected
# failures exact_zeros and fully_forbidden_refused under --precision float32;
# expected name finite_fill (float lowest) with low_precision, but the first batch
# left this class unnamed ("no known mistake"), so that is what is expected.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    q = q / np.float32(np.sqrt(q.shape[-1]))
    logits = q @ k.T
    if mask is not None:
        keep = ~np.asarray(mask, bool)
        logits = np.where(keep, logits, np.finfo(np.float32).min)
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
