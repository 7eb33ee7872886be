# Origin: vllm-project/vllm, tests/kernels/utils.py, ref_masked_attention (the
# "golden" masked attention reference of vLLM's kernel tests) with make_causal_mask's
# additive form, commit bcf9083ca17eee27d9bfb2f87ec8f71ecb99ff45 (read through the
# code index at that commit).
# Licence: Apache-2.0.
# Not copied: a NumPy port of the arithmetic for one head and one batch element.
# Arithmetic kept: torch.einsum("bqhd,bkhd->bhqk", query, key) in the inputs' dtype
# (float64 here), then .float(): the logits CAST to float32, then scale * (in
# float32) with scale = head_size ** -0.5 as the tests pass it; the mask as an
# additive float tensor, -inf where forbidden and 0 elsewhere (custom_mask.float(),
# as make_causal_mask builds it), added in float32; torch.softmax in float32
# (max-subtracted), then .to(value.dtype) (float64); out = weights @ value in
# float64.
# Changed: 4-D -> 2-D; the seq-len padding masks left out (our mask is the custom
# mask, any pattern); returns (O, A) (the source returns O only).
# Expected departures (before running): logits and softmax in float32 (the rest in
# float64); a fully forbidden row: -inf everywhere, NaN, not refused. Expected
# names: text run: low_precision (float32) + fully_forbidden_answered (NaN); own
# [--precision float32 --fully-forbidden nan]: pass.
import numpy as np


def attention(Q, K, V, mask=None):
    query, key, value = (np.asarray(x) for x in (Q, K, V))
    scale = query.shape[-1] ** -0.5
    w = np.float32(scale) * (query @ key.T).astype(np.float32)
    if mask is not None:
        custom_mask = np.where(np.asarray(mask, bool), np.float32(-np.inf), np.float32(0.0))
        w = w + custom_mask
    e = np.exp(w - w.max(axis=-1, keepdims=True))
    p = (e / e.sum(axis=-1, keepdims=True)).astype(value.dtype)
    return p @ value, p
