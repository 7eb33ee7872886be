# Origin: espnet/espnet, espnet/nets/pytorch_backend/transformer/attention.py,
# MultiHeadedAttention.forward, commit 0213427187b25b80800949b7d0ae8f6184f0fe2c
# (read through the code index at that commit).
# Licence: Apache-2.0.
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: scores = q k^T / math.sqrt(d_k) in float32 (torch's default
# float); the mask (ESPnet's: 1 = may attend, turned by mask.eq(0) into TRUE =
# forbidden, as ours) filled with MIN_VALUE = float(numpy.finfo(numpy.float32).min);
# torch.softmax (max-subtracted) over the keys; then the softmax's output
# masked_fill(mask, 0.0): the forbidden weights set to 0 AFTER the softmax, with no
# renormalisation; context = attn @ v in float32.
# Changed: torch -> NumPy float32; one head; the linear projections and the
# dropout (inference) left out; returns (O, A).
# Expected departures (before running): float32; a fully forbidden row: every logit
# is float32's lowest, the softmax is uniform, then zeroed: answered ZEROS, not
# refused; forbidden weights are exactly 0 (zeroed), but where the allowed logits
# lie at or near float32's lowest the forbidden keys take weight in the softmax and
# the zeroing leaves the row summing to less than 1 (row_stochastic under float32).
# Expected names: text run: low_precision (float32) + fully_forbidden_answered
# (zeros); own [--precision float32 --fully-forbidden zeros]: the float-lowest rows
# only, a float-lowest fill followed by zeroing, which is no catalogued member:
# "no known mistake" expected (finite_fill (float lowest) would be half right).
import numpy as np

MIN_VALUE = np.float32(np.finfo(np.float32).min)


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    d_k = q.shape[-1]
    scores = (q @ k.T) / np.float32(np.sqrt(d_k))
    if mask is not None:
        m = np.asarray(mask, bool)
        scores = np.where(m, MIN_VALUE, scores)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attn = e / e.sum(axis=-1, keepdims=True)
        attn = np.where(m, np.float32(0.0), attn)
    else:
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn
