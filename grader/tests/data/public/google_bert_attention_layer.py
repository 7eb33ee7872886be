# Origin: google-research/bert, modeling.py, attention_layer (and
# create_attention_mask_from_input_mask for the mask convention), commit
# eedf5716ce1268e56f0a50264a88cafad334ac61 (read in a snapshot of the repository;
# modeling.py last changed at bee6030e31e42a9394ac567da170a89a98d2062f).
# Licence: Apache-2.0 (the repository's LICENSE; Copyright 2018 The Google AI
# Language Team Authors in the file).
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: attention_scores = tf.matmul(query, key, transpose_b=True);
# tf.multiply(scores, 1.0 / math.sqrt(float(size_per_head))) (the scale AFTER the
# product, a Python float applied as float32); adder = (1.0 - mask) * -10000.0 with
# BERT's float mask 1.0 = may attend, 0.0 = masked; attention_scores += adder
# (ADDED); tf.nn.softmax (max-subtracted); context = probs @ value; float32.
# Changed: TensorFlow 1 -> NumPy float32; one head, no projections, no dropout
# (inference); the mask argument (true = forbidden) turned into BERT's 1/0 keep
# mask; returns (context, probs) as (O, A).
# Expected departures (before running): an additive -1e4 instead of -inf: forbidden
# keys get weight where the allowed logits lie near or below -1e4 (exact_zeros); a
# fully forbidden row is answered by the softmax of S - 1e4 (every logit shifted
# alike, rounded at the float32 spacing near 1e4, about 0.001): nearly the unmasked
# row, not uniform, not refused; float32. Expected names: text run: finite_fill
# (fill = -1e4, added to the logits) + low_precision (float32), as
# ort_attention_cpu.cpp and diffusers_attn_processor.py; own [--precision
# float32]: finite_fill (-1e4 added) on exact_zeros, fully_forbidden_refused,
# oracle_agreement, masked_equals_deleted and scale_off (masked_equals_deleted
# possibly unnamed, as for diffusers).
import math

import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    attention_scores = q @ k.T
    attention_scores = attention_scores * np.float32(1.0 / math.sqrt(float(q.shape[-1])))
    if mask is not None:
        attention_mask = (~np.asarray(mask, bool)).astype(np.float32)
        adder = (np.float32(1.0) - attention_mask) * np.float32(-10000.0)
        attention_scores = attention_scores + adder
    e = np.exp(attention_scores - attention_scores.max(axis=-1, keepdims=True))
    attention_probs = e / e.sum(axis=-1, keepdims=True)
    return attention_probs @ v, attention_probs
