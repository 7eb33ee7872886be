# Origin: NVIDIA/NeMo, nemo/collections/asr/parts/submodules/multi_head_attention.py,
# MultiHeadAttention.forward and forward_attention (the Conformer encoder's
# attention), commit 19916a4c2d39a16e6c23fb24163867789f4ae7c5 (read through the
# code index at that commit).
# Licence: Apache-2.0 (part adopted from ESPnet, Apache-2.0).
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: float32 (autocast turned off around the layer: inputs cast to
# float32); scores = q k^T / self.s_d_k (math.sqrt(d_k)); scores.masked_fill(mask,
# -10000.0) with the mask TRUE = forbidden (NeMo's pad mask, as ours);
# torch.softmax (max-subtracted); then masked_fill(mask, 0.0) on the weights, no
# renormalisation; x = attn @ v.
# Changed: torch -> NumPy float32; one head; no projections, no cache, no dropout
# (inference); returns (O, A).
# Expected departures (before running): float32; finite fill -1e4 and the forbidden
# weights zeroed after the softmax: a fully forbidden row is uniform, then zeroed:
# answered ZEROS, not refused; forbidden weights exactly 0, but where the allowed
# logits lie near or below -1e4 the forbidden keys take the weight in the softmax
# and the row sums to less than 1 (or to 0).
# Expected names: text run: low_precision (float32) + fully_forbidden_answered
# (zeros) on the failures that do not need the -1e4 rows; on those, a -1e4 fill
# followed by zeroing is no catalogued member: "no known mistake" expected there
# (finite_fill (fill = -1e4) would be half right). Own [--precision float32
# --fully-forbidden zeros]: the rows with allowed logits below -1e4 fail
# (row_stochastic at least): "no known mistake" expected.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    s_d_k = np.float32(np.sqrt(q.shape[-1]))
    scores = (q @ k.T) / s_d_k
    if mask is not None:
        m = np.asarray(mask, bool)
        scores = np.where(m, np.float32(-10000.0), scores)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attn = e / e.sum(axis=-1, keepdims=True)
        attn = np.where(m, np.float32(0.0), attn)
    else:
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn
