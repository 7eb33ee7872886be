# Origin: awslabs/sockeye (PyTorch version), sockeye/layers.py, DotAttentionCell.forward
# and interleaved_matmul_encdec_qk, with sockeye/constants.py LARGE_VALUES,
# commit 871d9863d6a657d87de1c90f44977c5b70c99c7e.
# Licence: Apache-2.0 (Copyright Amazon.com, Inc. or its affiliates).
# Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: q = q * head_dim ** -0.5 BEFORE the product; logits = q k^T;
# logits.masked_fill(mask, -LARGE_VALUES[float32]) with LARGE_POSITIVE_VALUE =
# 99999999. (mask true = masked out, as ours; 99999999 rounds to 1e8 in float32);
# softmax(dim=-1); probs @ v.
# Changed: torch -> NumPy float32; one head; the interleaved key/value layout
# split into K and V; no dropout.
# Expected departures (before running): finite fill -99999999 (float32: -1e8);
# a fully forbidden row uniform, not refused; float32. With --precision
# float32: fully_forbidden_refused and exact_zeros fail (edge cases with allowed
# logits at -2e9 and below), maybe oracle_agreement and the metamorphic
# properties as for the -1e9 fills. Expected name: finite_fill with a fill near
# -1e8 (a value the README does not list as a candidate, so possibly the nearest
# candidate -1e9 named, which would be a wrong value).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    q = q * np.float32(q.shape[-1] ** -0.5)
    logits = q @ k.T
    if mask is not None:
        logits = np.where(np.asarray(mask, bool), np.float32(-99999999.0), logits)
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    probs = e / e.sum(axis=-1, keepdims=True)
    return probs @ v, probs
