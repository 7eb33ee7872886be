# Origin: lucidrains/vit-pytorch, vit_pytorch/vit.py, Attention.forward, commit
# 0ebd4edab94c211eff78406248896588d155a10c (as stored in the code index).
# Licence: MIT (LICENSE, Copyright (c) 2025 Phil Wang, read at 5e9be34).
# Not copied: a NumPy reimplementation of the arithmetic for one head.
# Arithmetic kept: scale = dim_head ** -0.5 (dim_head = the head width, d_k
# here); dots = matmul(q, k^T) * scale; attn = nn.Softmax(dim=-1)(dots) (max,
# exp(x - max), / sum); out = matmul(attn, v); float32 (torch's default dtype).
# The layer takes NO mask: forward(x) has no mask argument and nothing masks the
# logits.
# Changed: torch -> NumPy float32; one head; the LayerNorm, to_qkv and to_out
# projections left out (q, k, v given); no dropout (eval); the mask argument
# accepted and, as in the source (which has no such argument), never used.
# Expected departures (before running): the mask is ignored: forbidden keys get
# their softmax weight, a fully forbidden row is answered with the unmasked
# softmax instead of refused; float32. Expected names: text: mask_ignored +
# low_precision (float32); own [--precision float32]: mask_ignored on every
# failure (unmasked cases pass).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    scale = np.float32(q.shape[-1] ** -0.5)
    dots = (q @ k.T) * scale
    e = np.exp(dots - dots.max(axis=-1, keepdims=True))
    attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn
