# Origin: tensorflow/addons, tensorflow_addons/layers/multihead_attention.py,
# MultiHeadAttention.call, commit c6c82fc9d333fb9796e37b8ba0556b5fce721152.
# Licence: Apache-2.0 (file header).
# Not copied: a NumPy port of the arithmetic.
# Arithmetic kept: query /= sqrt(head_size) BEFORE the product (float32 constant);
# logits = einsum(query, key); mask cast to float32 with 1 = attend, 0 = no
# attention, then logits += -10e9 * (1.0 - mask) (an ADDED -1e10); tf.nn.softmax
# (exp(x - max) / sum); output = attn_coef @ value; float32. The mask argument
# (true = forbidden) becomes the source's mask as 1 - mask.
# Changed: the query/key/value/projection kernels and bias, heads and dropout left
# out; returns (output, attn_coef).
# Expected departures (before running): additive -1e10 (forbidden logit x - 1e10):
# a fully forbidden row is the softmax of x - 1e10 rounded in float32 (uniform for
# logits below about 512 in size); forbidden keys get weight when the allowed logits
# lie near or below -1e10 (exact_zeros); float32. Expected names: text: finite_fill
# (fill = -1e10 added) + low_precision (float32) (value possibly -1e9 added, the
# candidates' nearest); own [--precision float32]: finite_fill (-1e10 added), some
# failures possibly unnamed (as keras_mha, tf_docs_transformer).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    q = q / np.sqrt(np.float32(q.shape[-1]))
    logits = q @ k.T
    if mask is not None:
        keep = 1.0 - np.asarray(mask, bool).astype(np.float32)  # 1 = attend
        logits = logits + np.float32(-10e9) * (np.float32(1.0) - keep)
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn
