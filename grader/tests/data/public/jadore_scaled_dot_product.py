# Origin: jadore801120/attention-is-all-you-need-pytorch, transformer/Modules.py,
# ScaledDotProductAttention.forward, with transformer/SubLayers.py
# (MultiHeadAttention: temperature = d_k ** 0.5) and transformer/Models.py
# (get_pad_mask, get_subsequent_mask: true = may attend), commit
# 132907dd272e2cc92e3c10e6c4e783a87ff8893d (read in a snapshot of the repository).
# Licence: MIT (Copyright (c) 2017 Victor Huang).
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: attn = torch.matmul(q / self.temperature, k^T): q is divided by
# temperature = d_k ** 0.5 (a Python float, applied as float32) BEFORE the product,
# so q is rounded once more; attn.masked_fill(mask == 0, -1e9); F.softmax(attn,
# dim=-1) (max-subtracted); output = attn @ v; float32.
# Changed: torch -> NumPy float32; one head; the projections, the layer norm, the
# residual and the dropouts (inference) left out; the mask argument (true =
# forbidden) turned into the repository's keep mask; returns (output, attn).
# Expected departures (before running): a finite fill -1e9 instead of -inf:
# forbidden keys get weight where the allowed logits lie near or below -1e9
# (exact_zeros); a fully forbidden row is uniform (mean of V), not refused;
# float32. Expected names: text run: finite_fill (fill = -1e9) + low_precision
# (float32), as the Annotated Transformer; own [--precision float32]: finite_fill
# (fill = -1e9) on exact_zeros, fully_forbidden_refused and, as the Annotated
# Transformer, possibly oracle_agreement and the metamorphic properties.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    temperature = q.shape[-1] ** 0.5
    attn = (q / np.float32(temperature)) @ k.T
    if mask is not None:
        keep = ~np.asarray(mask, bool)
        attn = np.where(keep == 0, np.float32(-1e9), attn)
    e = np.exp(attn - attn.max(axis=-1, keepdims=True))
    attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn
