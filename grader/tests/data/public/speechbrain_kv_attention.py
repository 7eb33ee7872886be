# Origin: speechbrain/speechbrain, speechbrain/nnet/attention.py,
# KeyValueAttention.forward (single-head key-value attention for seq2seq),
# commit 479144c274aa5c9bdfeb47472a3a55f073f2dbd4 (read through the code index at
# that commit).
# Licence: Apache-2.0.
# Not copied: a NumPy port of the arithmetic (one decoder query per call there;
# here one row per query).
# Arithmetic kept: float32; scores = keys @ query / self.scaling with scaling =
# torch.sqrt(torch.tensor(attn_dim).float()) (a float32 sqrt of the width);
# scores.masked_fill(self.mask == 0, -np.inf) where the mask (length_to_mask: 1 =
# a real frame) marks the padding, i.e. TRUE = forbidden as ours; softmax over the
# keys (torch, max-subtracted); out = weights @ values.
# Changed: torch -> NumPy float32; the linear projections left out; the length
# mask replaced by the mask argument (any pattern); returns (O, A).
# Expected departures (before running): float32; a fully forbidden row: every logit
# -inf, max -inf, NaN: answered NaN, not refused.
# Expected names: text run: low_precision (float32) + fully_forbidden_answered
# (NaN) on every failure; own [--precision float32 --fully-forbidden nan]: pass.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scaling = np.sqrt(np.float32(q.shape[-1]))
    scores = (q @ k.T) / scaling
    if mask is not None:
        scores = np.where(np.asarray(mask, bool), np.float32(-np.inf), scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    return w @ v, w
