# Origin: huggingface/transformers, src/transformers/models/opt/modeling_opt.py,
# OPTAttention.forward and _expand_mask, commit
# ab910744d640b0ed37e2056eb94de31fd4a6979c (read through the code index at that
# commit; the form before eager_attention_forward).
# Licence: Apache-2.0 (Copyright 2022 The Fairseq Authors and The HuggingFace Inc.
# team).
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: query_states = q_proj(x) * self.scaling, scaling = head_dim**-0.5
# (a Python float applied as float32) BEFORE the product; attn_weights =
# bmm(query, key^T); attn_weights + attention_mask, the additive mask of
# _expand_mask: (1 - keep) then masked_fill(..., finfo(float32).min), so 0 where
# allowed and float32's lowest where forbidden; then torch.max(attn_weights,
# finfo(float32).min) (S + lowest overflows to -inf when S is below about
# -1e31; the clamp puts it back at lowest); softmax(dim=-1) (the float32 branch, no
# upcast); attn_output = bmm(probs, value).
# Changed: torch -> NumPy float32; one head, no projections, no cache, no dropout,
# no head mask; the causal part of OPT's combined decoder mask left out (the mask
# argument, true = forbidden, is the padding mask's form); returns (O, A).
# Expected departures (before running): an additive float32 lowest instead of
# -inf (S + lowest rounds to lowest for every |S| below about 1e31): a fully
# forbidden row is uniform (mean of V), not refused; forbidden keys get weight
# where the allowed logits lie at float lowest (exact_zeros); float32. Expected
# names: text run: finite_fill (fill = float lowest) + low_precision (float32),
# exact_zeros possibly unnamed (as hf_bert_eager.py and hf_whisper_eager.py,
# whose additive finfo.min is the same arithmetic without the clamp); own
# [--precision float32]: finite_fill (fill = float lowest) on exact_zeros and
# fully_forbidden_refused.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    lowest = np.finfo(np.float32).min
    query_states = q * np.float32(q.shape[-1] ** -0.5)
    attn_weights = query_states @ k.T
    if mask is not None:
        inverted = np.asarray(mask, bool).astype(np.float32)  # 1 - keep
        attention_mask = np.where(inverted.astype(bool), lowest, inverted)
        with np.errstate(over="ignore"):
            attn_weights = attn_weights + attention_mask
        attn_weights = np.maximum(attn_weights, lowest)
    e = np.exp(attn_weights - attn_weights.max(axis=-1, keepdims=True))
    attn_weights = e / e.sum(axis=-1, keepdims=True)
    return attn_weights @ v, attn_weights
