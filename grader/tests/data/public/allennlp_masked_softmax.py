# Origin: allenai/allennlp, allennlp/nn/util.py masked_softmax (memory_efficient=False,
# the default), tiny_value_of_dtype and weighted_sum, with
# allennlp/modules/attention/scaled_dot_product_attention.py and attention.py
# (Attention.forward with normalize=True), commit 80fb6061e568cb9d6ab5d45b661e86eb61b92c82.
# Licence: Apache-2.0.
# Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: per query vector, scores = K q (DotProductAttention), DIVIDED by
# sqrt(scaling_factor) with scaling_factor = K.size(-1) = d_k; masked_softmax with a
# KEEP mask: softmax(scores * mask) (forbidden logits become 0, not -inf), times mask,
# divided by (sum + 1e-13) (tiny_value_of_dtype(float32)); the output is
# weighted_sum(V, weights) = weights @ V. float32 throughout.
# Changed: torch -> NumPy float32; the vector-versus-matrix attention applied to
# every row of Q; the mask argument (true = forbidden) inverted to AllenNLP's keep
# mask; returns (O, A).
# Expected departures (before running): the multiplicative mask (logits times keep):
# an allowed row whose logits lie far below 0 beside a forbidden key underflows
# (the forbidden logit 0 takes the weight, then is zeroed) and the row comes out
# near zero, not stochastic; a fully forbidden row gives 0 / (0 + 1e-13) = zeros,
# not refused; float32. Expected name (text run): multiplicative_mask (epsilon =
# 1e-13) with low_precision (float32); [--precision float32 --fully-forbidden zeros]:
# multiplicative_mask (epsilon = 1e-13). The catalogue's multiplicative_mask names
# this very idiom ("AllenNLP-style masked_softmax").
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scores = (q @ k.T) / np.float32(np.sqrt(k.shape[-1]))
    if mask is None:
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        w = e / e.sum(axis=-1, keepdims=True)
    else:
        keep = (~np.asarray(mask, bool)).astype(np.float32)
        s = scores * keep
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        w = e / e.sum(axis=-1, keepdims=True)
        w = w * keep
        w = w / (w.sum(axis=-1, keepdims=True) + np.float32(1e-13))
    return w @ v, w
