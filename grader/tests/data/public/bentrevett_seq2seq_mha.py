# Origin: bentrevett/pytorch-seq2seq, "6 - Attention is All You Need.ipynb",
# MultiHeadAttentionLayer.forward (with Seq2Seq.make_src_mask / make_trg_mask for the
# mask convention), commit 7faa64a895fe4b76cb87409d66a0ba349a78298e (the notebook's
# last version at the top level, before it moved to legacy/; read in a snapshot of
# the repository).
# Licence: MIT (Copyright (c) 2018 Ben Trevett).
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: self.scale = torch.sqrt(torch.FloatTensor([head_dim])) (a float32
# tensor); energy = torch.matmul(Q, K^T) / self.scale (the scale AFTER the product,
# a float32 division); energy.masked_fill(mask == 0, -1e10) with the notebook's
# masks (src != pad, tril of ones: true = may attend); torch.softmax(energy,
# dim=-1) (max-subtracted); x = attention @ V; float32.
# Changed: torch -> NumPy float32; one head; the fc_q/fc_k/fc_v/fc_o projections
# and the dropout (inference) left out; the mask argument (true = forbidden) turned
# into the notebook's keep mask; returns (x, attention) as (O, A).
# Expected departures (before running): a finite fill -1e10 instead of -inf:
# forbidden keys get weight where the allowed logits lie near or below -1e10
# (exact_zeros); a fully forbidden row is uniform (mean of V), not refused;
# float32. Expected names: text run: finite_fill (fill = -1e10) + low_precision
# (float32); own [--precision float32]: finite_fill (fill = -1e10) on exact_zeros
# and fully_forbidden_refused (the Annotated Transformer's -1e9 also failed
# oracle_agreement and the metamorphic properties there: possible here too).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scale = np.sqrt(np.float32(q.shape[-1]))
    energy = (q @ k.T) / scale
    if mask is not None:
        keep = ~np.asarray(mask, bool)
        energy = np.where(keep == 0, np.float32(-1e10), energy)
    e = np.exp(energy - energy.max(axis=-1, keepdims=True))
    attention = e / e.sum(axis=-1, keepdims=True)
    return attention @ v, attention
