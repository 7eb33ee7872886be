# Origin: facebookresearch/fairseq2, src/fairseq2/nn/transformer/attention.py,
# _naive_scaled_dot_product_attention (NaiveSDPA, and TorchSDPA's fallback when the
# weights are asked for), commit b74378e4481b46db1093261096007dd189277f33 (read
# through the code index at that commit).
# Licence: MIT (fairseq2's LICENSE; the file header calls it "BSD-style").
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: attn_weights = seqs @ keys^T in the inputs' dtype (float64 here),
# times seqs.size(-1) ** -0.5 (after the product); the key padding mask (fairseq2's
# materialised PaddingMask: True = a real key) applied by torch.where(m, weights,
# -inf), i.e. -inf where forbidden; softmax(weights, dim=-1, dtype=torch.float32):
# the logits CAST to float32 and the softmax (max-subtracted) done in float32, then
# .type_as(seqs) back to float64; attn = weights @ values in float64.
# Changed: torch -> NumPy; one head; the additive attn_mask argument left out (our
# boolean mask goes in as the padding mask, generalised to any pattern); no dropout
# (inference); returns (O, A).
# Expected departures (before running): the softmax in float32 while the rest is in
# float64 (the weights carry float32's rounding); a fully forbidden row: -inf
# everywhere, NaN, not refused. Expected names: text run: low_precision (float32) +
# fully_forbidden_answered (NaN); own [--precision float32 --fully-forbidden nan]:
# pass.
import numpy as np


def attention(Q, K, V, mask=None):
    seqs, keys, values = (np.asarray(x) for x in (Q, K, V))
    w = (seqs @ keys.T) * (seqs.shape[-1] ** -0.5)
    if mask is not None:
        w = np.where(np.asarray(mask, bool), -np.inf, w)
    w32 = w.astype(np.float32)
    e = np.exp(w32 - w32.max(axis=-1, keepdims=True))
    p = (e / e.sum(axis=-1, keepdims=True)).astype(seqs.dtype)
    return p @ values, p
