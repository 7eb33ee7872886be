# Origin: huggingface/transformers, src/transformers/models/gptj/modeling_gptj.py,
# GPTJAttention._attn (and __init__ for scale_attn), commit
# cb6cd7e984c1482cfcf62aeb3b2921bfeca71e95 (read through the code index at that
# commit).
# Licence: Apache-2.0 (Copyright 2021 The EleutherAI and HuggingFace Teams).
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: query and key cast to float32; attn_weights = query @ key^T with
# NO scale yet; torch.where(causal_mask, attn_weights, finfo(float32).min) (the
# causal buffer: true = may attend); THEN attn_weights / scale_attn, scale_attn =
# sqrt(float32(head_dim)) (a float32 tensor), so a forbidden logit becomes
# float32 lowest / sqrt(d_k), not lowest; the additive attention_mask (None here);
# softmax(dim=-1) (max-subtracted); .to(value.dtype) (float32); attn @ value.
# Changed: torch -> NumPy float32; one head, no rotary embedding, no projections,
# no dropout; the causal buffer replaced by the mask argument (true = forbidden),
# as hf_gpt2_eager.py does; the padding mask left out; returns (O, A).
# Expected departures (before running): a finite fill, float32's lowest, applied
# to the UNSCALED logits and then divided by sqrt(d_k) with them: forbidden keys
# get weight where an allowed scaled logit lies at or below lowest / sqrt(d_k)
# (reachable: q . k itself can be as low as lowest); a fully forbidden row is
# uniform (mean of V), not refused; float32. Expected names: text run: finite_fill
# (fill = float lowest) + low_precision (float32) where the rows do not separate
# lowest from lowest / sqrt(d_k) (for d_k = 1 they are equal); a row with allowed
# logits between the two contradicts every candidate fill: "no known mistake"
# there (unsure which cases the battery holds); own [--precision float32]:
# finite_fill (fill = float lowest) on fully_forbidden_refused, exact_zeros
# possibly unnamed.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    attn_weights = q @ k.T
    if mask is not None:
        causal_mask = ~np.asarray(mask, bool)
        mask_value = np.finfo(np.float32).min
        attn_weights = np.where(causal_mask, attn_weights, mask_value)
    scale_attn = np.sqrt(np.float32(q.shape[-1]))
    attn_weights = attn_weights / scale_attn
    e = np.exp(attn_weights - attn_weights.max(axis=-1, keepdims=True))
    attn_weights = e / e.sum(axis=-1, keepdims=True)
    return attn_weights @ v, attn_weights
