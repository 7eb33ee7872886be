# Origin: tensorflow/docs, site/en/tutorials/text/transformer.ipynb,
# scaled_dot_product_attention(q, k, v, mask) with create_padding_mask /
# create_look_ahead_mask, commit 8345b8b266a62acb7a83ec5a8415437c6458a54e (the last
# commit holding the notebook there, before it moved to tensorflow/text; read in a
# snapshot of the repository).
# Licence: Apache-2.0 (Copyright 2019 The TensorFlow Authors; the notebook's
# licence cell).
# Not copied: a NumPy port of the function's arithmetic.
# Arithmetic kept: matmul_qk = tf.matmul(q, k, transpose_b=True); dk =
# tf.cast(tf.shape(k)[-1], tf.float32); scaled = matmul_qk / tf.math.sqrt(dk) (the
# scale AFTER the product); scaled += mask * -1e9 with the tutorial's float mask
# 1.0 = FORBIDDEN (padding: seq == 0; look-ahead: 1 - band_part(ones, -1, 0)), the
# same convention as attnlab's; tf.nn.softmax(axis=-1) (max-subtracted);
# output = weights @ v; float32.
# Changed: TensorFlow -> NumPy float32; one head, no projections; the mask argument
# (true = forbidden) cast to the float 1.0/0.0 mask; returns (output, weights).
# Expected departures (before running): an additive -1e9 instead of -inf:
# forbidden keys get weight where the allowed logits lie near or below -1e9
# (exact_zeros); a fully forbidden row: S - 1e9 rounds to -1e9 in float32 for
# |S| < 32, so the row comes out uniform (or nearly), not refused; float32.
# Expected names: text run: finite_fill (fill = -1e9, added to the logits) +
# low_precision (float32), as tensor2tensor_dot_product and keras_mha; own
# [--precision float32]: finite_fill (-1e9 added) on exact_zeros and
# fully_forbidden_refused, oracle_agreement, masked_equals_deleted and scale_off
# possibly failing too (as keras_mha), possibly some unnamed.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    matmul_qk = q @ k.T
    dk = np.float32(k.shape[-1])
    scaled = matmul_qk / np.sqrt(dk)
    if mask is not None:
        m = np.asarray(mask, bool).astype(np.float32)
        scaled = scaled + m * np.float32(-1e9)
    e = np.exp(scaled - scaled.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights
