# Origin: OpenNMT/OpenNMT-tf, opennmt/layers/transformer.py, MultiHeadAttention.call
# (TensorFlow 2 layer; not OpenNMT-py, whose layer is opennmt_mha.py), commit
# cfa440eb6e694fa63768b36c6b251b9c63e7d1d8.
# Licence: MIT (OpenNMT-tf's LICENSE.md; unsure: not read at this commit).
# Not copied: a NumPy port of the arithmetic.
# Arithmetic kept: queries *= num_units_per_head ** -0.5 BEFORE the product; dot =
# queries @ keys^T; the mask (boolean, TRUE = may attend) cast to float32 and applied
# as dot * mask + (1.0 - mask) * tf.float32.min (a multiplication by the mask, then
# float32's lowest value ADDED where the mask is 0: forbidden -> 0 * dot + lowest =
# lowest, allowed -> dot + (-0.0) = dot); tf.nn.softmax in float32; heads = attn @
# values; float32. attnlab's mask (true = forbidden) becomes the source's mask as
# ~mask.
# Changed: the linear projections, heads, relative positions (maximum_relative_position
# default None: not used), the cache and dropout left out; returns (heads, attn).
# Expected departures (before running): fill float lowest (through the multiply-add:
# the same value as a fill in place for finite logits); a fully forbidden row is
# uniform; exact_zeros fails where allowed logits reach float lowest; float32; an
# infinite or NaN logit at a forbidden key would give NaN (0 * inf) where a fill in
# place gives lowest (the battery may not reach it). Expected names: text:
# finite_fill (fill = float lowest) + low_precision (float32) on most failures,
# exact_zeros possibly unnamed (as latent_diffusion_crossattn.py); own
# [--precision float32]: finite_fill (float lowest).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    q = q * np.float32(q.shape[-1] ** -0.5)
    dot = q @ k.T
    if mask is not None:
        m = (~np.asarray(mask, bool)).astype(np.float32)  # 1 = may attend
        with np.errstate(invalid="ignore"):
            dot = dot * m + (np.float32(1.0) - m) * np.finfo(np.float32).min
    e = np.exp(dot - dot.max(axis=-1, keepdims=True))
    attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn
