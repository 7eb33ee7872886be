# Origin: tensorflow/mesh, mesh_tensorflow/transformer/attention.py, attention()
# and visibility_mask_to_attention_bias(); mesh_tensorflow/ops.py softmax /
# log_softmax / reduce_logsumexp; commit da907937e68aa421186f1178d71eb5f736fcb069
# (a fetched snapshot). The dot-product attention of Mesh TensorFlow's Transformer
# (the T5 code base).
# Licence: Apache-2.0 (LICENSE at that commit).
# Not copied: a NumPy reimplementation of the arithmetic for one head.
# Arithmetic kept: float32_logits default True: q and k cast to float32;
# logits = einsum(q, k) with NO 1/sqrt(d_k) (Mesh TF folds the scale into the
# initialisation of the query weights); bias ADDED: cast(not visible) * -1e9
# (visible TRUE = keep); softmax = exp(log_softmax(x)), log_softmax(x) = x -
# reduce_logsumexp(x), reduce_logsumexp = log(sum(exp(x - max))) + max
# (extra_logit default None); weights cast to v's dtype (float32); outputs =
# weights @ v.
# Changed: mtf tensors -> NumPy float32; one head; no dropout (dropout_rate 0),
# no 2-D sharding reshape; the bias built from the mask argument (true =
# forbidden = not visible).
# Expected departures (before running): three. No scaling (the wrong_scale
# family: scale = none); additive -1e9 (Lemma 2 asks -inf): forbidden keys get
# weight where the allowed logits lie near or below -1e9; a fully forbidden row is
# answered, not refused, and NOT uniform: its logits all round to -1e9 in float32,
# log(sum) = log(T_v) is lost against 1e9 (float32's step there is 64), so
# logsumexp = -1e9 and every weight is exp(0) = 1 (the row sums to T_v; seen on a
# small case before any attnlab run); float32 (the weights as exp(x - logsumexp),
# not e / sum). Expected names: text: finite_fill (-1e9 added) + wrong_scale
# (scale = none) + low_precision (float32) (as keras_attention_layer.py) where the
# empty row does not show; fully_forbidden_refused probably unnamed (an all-ones
# answer is not among NaN / zeros / uniform; the Trax all-ones member was
# withdrawn); own [--precision float32]: finite_fill (-1e9 added) + wrong_scale
# (scale = none), the empty row as in text.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    logits = q @ k.T
    if mask is not None:
        visible = ~np.asarray(mask, bool)
        bias = (~visible).astype(np.float32) * np.float32(-1e9)
        logits = logits + bias
    max_logit = logits.max(axis=-1, keepdims=True)
    lse = np.log(np.exp(logits - max_logit).sum(axis=-1, keepdims=True)) + max_logit
    weights = np.exp(logits - lse).astype(np.float32)
    return weights @ v, weights
