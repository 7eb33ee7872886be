# Origin: lucidrains/PaLM-pytorch, palm_pytorch/palm_pytorch.py, Attention.forward,
# commit 01c5abd1e602e0a5e209dd7fc04682ce67fe4030 (as stored in the code index).
# Licence: MIT (the repository's stated licence; its LICENSE file not read in a stored copy). Not copied: a NumPy reimplementation.
# Arithmetic kept: q = q * scale (dim_head ** -0.5) BEFORE the product;
# sim = q k^T; sim.masked_fill(causal_mask, -finfo(float32).max) (mask true =
# forbidden, as ours); sim = sim - sim.amax(dim=-1) (an explicit max subtraction);
# softmax (which subtracts the row max again); attn @ v.
# Changed: torch -> NumPy float32; one head, no rotary embedding, no
# projections; the causal mask replaced by the mask argument.
# Expected departures (before running): finite fill -finfo(float32).max; a fully
# forbidden row uniform, not refused; float32. With --precision float32:
# fully_forbidden_refused and exact_zeros fail (as latent-diffusion).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    q = q * np.float32(q.shape[-1] ** -0.5)
    sim = q @ k.T
    if mask is not None:
        sim = np.where(np.asarray(mask, bool), -np.finfo(np.float32).max, sim)
    sim = sim - sim.max(axis=-1, keepdims=True)
    e = np.exp(sim - sim.max(axis=-1, keepdims=True))
    attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn
