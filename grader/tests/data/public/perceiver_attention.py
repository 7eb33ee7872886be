# Origin: lucidrains/perceiver-pytorch, perceiver_pytorch/perceiver_pytorch.py,
# Attention.forward, commit e5a81bdab451ac14558a0115409bc017fadce3ae.
# Licence: MIT (setup.py license='MIT' and classifier "OSI Approved :: MIT License";
# no LICENSE file seen in the code index).
# Not copied: a NumPy port of the arithmetic.
# Arithmetic kept: sim = einsum(q, k) * scale, scale = dim_head ** -0.5 AFTER the
# product; sim.masked_fill_(~mask, -finfo(float32).max) where the source's mask is
# TRUE = keep (so attnlab's mask, true = forbidden, is ~mask directly); softmax(dim=-1);
# out = attn @ v; float32.
# Changed: the projections, heads, dropout and the output layer left out; the
# source's per-key mask (b, j) generalised to a per-(query, key) mask, the same fill
# elementwise; returns (O, A).
# Expected departures (before running): fill -finfo(float32).max = float lowest
# (fully forbidden row uniform; exact_zeros fails where allowed logits reach float
# lowest); float32. Expected names (as latent_diffusion_crossattn.py, same idiom):
# text: finite_fill (fill = float lowest) + low_precision (float32) on most failures,
# exact_zeros possibly unnamed; own [--precision float32]: finite_fill (float lowest).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    sim = (q @ k.T) * np.float32(q.shape[-1] ** -0.5)
    if mask is not None:
        sim = np.where(np.asarray(mask, bool), -np.finfo(np.float32).max, sim)
    e = np.exp(sim - sim.max(axis=-1, keepdims=True))
    attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn
