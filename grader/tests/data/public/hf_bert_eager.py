# Origin: huggingface/transformers, src/transformers/models/bert/modeling_bert.py,
# BertSelfAttention.forward (eager), with get_extended_attention_mask from
# modeling_utils.py: extended = (1.0 - attention_mask) * torch.finfo(dtype).min,
# https://github.com/huggingface/transformers (4.3x releases as read; no commit pinned).
# Licence: Apache-2.0 (Copyright The Google AI Language Team Authors and The
# HuggingFace Inc. team). Not copied: a NumPy reimplementation.
# Arithmetic kept: scores = q @ k^T; scores = scores / sqrt(attention_head_size);
# scores = scores + extended_mask (ADDITIVE finfo.min at forbidden keys, 0 else);
# softmax(dim=-1); context = probs @ v; float32.
# Changed: torch -> NumPy float32; attention_mask (1 = keep) built from the mask
# argument (true = forbidden) as 1 - mask; one head; no dropout; returns (O, A).
# Expected departures (before running): additive finfo.min: forbidden weights
# underflow to exactly 0 in float32 unless the whole row is forbidden; a fully
# forbidden row gives uniform weights (all scores ~ finfo.min, shifted to ~0),
# not refused; float32. Scale uses the head size = d_k here (d_k == d_v in BERT;
# with d_v != d_k the NumPy port uses d_k, the width of q). Expect failure of the
# fully forbidden property under every --fully-forbidden; with --precision float32
# the other properties should pass.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scores = q @ k.T
    scores = scores / np.float32(np.sqrt(q.shape[-1]))
    if mask is not None:
        keep = 1.0 - np.asarray(mask, bool).astype(np.float32)
        scores = scores + (1.0 - keep) * np.finfo(np.float32).min
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return p @ v, p
