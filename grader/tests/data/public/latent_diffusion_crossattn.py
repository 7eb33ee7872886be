# Origin: CompVis/latent-diffusion, ldm/modules/attention.py, CrossAttention.forward,
# commit 3fea3d12d865321f0245a7b0642202e1429cd4c9.
# Licence: MIT (the repository's stated licence; its LICENSE file not read in a stored copy).
# Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: sim = (q k^T) * scale, scale = dim_head ** -0.5 applied AFTER
# the product; sim.masked_fill_(~mask, -finfo(float32).max) with mask true = KEEP;
# sim.softmax(dim=-1); attn @ v.
# Changed: torch -> NumPy float32; one head, no projections; the per-key padding
# mask (b, j) generalised to the T_q x T_v mask argument (true = forbidden).
# Expected departures (before running): finite fill -finfo(float32).max
# (-3.4028235e38); a fully forbidden row uniform, not refused; float32. With
# --precision float32: fully_forbidden_refused and exact_zeros fail (as
# x_transformers, same fill). Expected names: finite_fill (float lowest) with
# fully_forbidden_answered (uniform) - or nothing named, as x_transformers.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    sim = (q @ k.T) * np.float32(q.shape[-1] ** -0.5)
    if mask is not None:
        sim = np.where(np.asarray(mask, bool), -np.finfo(np.float32).max, sim)
    e = np.exp(sim - sim.max(axis=-1, keepdims=True))
    attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn
