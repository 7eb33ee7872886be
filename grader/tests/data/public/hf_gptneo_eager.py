# Origin: huggingface/transformers, src/transformers/models/gpt_neo/modeling_gpt_neo.py,
# GPTNeoSelfAttention._attn, commit d3b7c99461b69b22543d6ec4c37109ddbae71ed2 (read
# through the code index at that commit).
# Licence: Apache-2.0 (Copyright 2021 The Eleuther AI and HuggingFace Inc. team).
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: query and key cast to float32; attn_weights = query @ key^T with
# NO scale at all (GPT-Neo's eager path never divides by sqrt(head_dim));
# torch.where(causal_mask, attn_weights, finfo(float32).min) (the bias buffer: true
# = may attend; the "local" layers' window is a different buffer, not used here);
# the additive attention_mask (None here); softmax(dim=-1) (max-subtracted);
# .to(value.dtype) (float32); attn @ value.
# Changed: torch -> NumPy float32; one head, no projections, no dropout, no cache;
# the causal buffer replaced by the mask argument (true = forbidden), as
# hf_gpt2_eager.py does; returns (O, A).
# Expected departures (before running): no 1/sqrt(d_k) (scale 1); a finite fill at
# float32's lowest: a fully forbidden row is uniform (mean of V), not refused, and
# forbidden keys get weight where the allowed logits lie at float lowest; float32.
# Expected names: text run: wrong_scale (scale = none) + finite_fill (fill = float
# lowest) + low_precision (float32), three mistakes, as hf_t5_eager.py and
# hf_gpt2_eager.py in the three-mistake runs (exact_zeros possibly unnamed, past
# float32's range); own [--precision float32]: wrong_scale (scale = none) +
# finite_fill (fill = float lowest).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    attn_weights = q @ k.T
    if mask is not None:
        causal_mask = ~np.asarray(mask, bool)
        mask_value = np.finfo(np.float32).min
        attn_weights = np.where(causal_mask, attn_weights, mask_value)
    e = np.exp(attn_weights - attn_weights.max(axis=-1, keepdims=True))
    attn_weights = e / e.sum(axis=-1, keepdims=True)
    return attn_weights @ v, attn_weights
