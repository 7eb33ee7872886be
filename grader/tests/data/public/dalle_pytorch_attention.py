# Origin: lucidrains/DALLE-pytorch, dalle_pytorch/attention.py, Attention.forward (the
# dense attention; default causal = True), commit
# f68cb213a3a687d7b2f0cc6c7f58148bbb89d6c4.
# Licence: MIT (lucidrains' repositories are MIT; unsure: the LICENSE file was not read
# at this commit).
# Not copied: a NumPy port of the arithmetic.
# Arithmetic kept: dots = einsum(q, k) * scale, scale = dim_head ** -0.5 AFTER the
# product; mask_value = -finfo(dots.dtype).max (float32 lowest); the given mask
# (TRUE = keep in the source, so attnlab's forbidden = ~mask) filled with mask_value;
# then, with the default causal = True, a causal mask ones(i, j).triu_(j - i + 1)
# (key c forbidden for query r when c > r + (j - i): aligned to the bottom right)
# filled with the same mask_value, WHATEVER mask is passed; dots.softmax(dim=-1);
# out = attn @ v; float32.
# Changed: to_qkv, heads, to_out and dropout left out; the source's per-key mask (b, j)
# generalised to a per-(query, key) mask, the same fill elementwise; returns (O, A).
# Expected departures (before running): (1) the causal mask added to every mask (the
# default causal = True): keys after the query (bottom-right aligned) are forbidden
# even where attnlab's mask allows them: wrong answers on nearly every case with
# more than one key (the textbook example included); (2) fill float lowest: a fully
# forbidden row is uniform; (3) float32. Expected names: text: causal_assumed is the
# nearest family (every mask taken as causal), but here the given mask is kept AND
# the causal one added, so probably "no known mistake" (or causal_assumed where the
# given mask forbids nothing); own [--precision float32]: as text.
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    dots = (q @ k.T) * np.float32(q.shape[-1] ** -0.5)
    mask_value = -np.finfo(np.float32).max
    if mask is not None:
        dots = np.where(np.asarray(mask, bool), mask_value, dots)
    i, j = dots.shape
    causal = np.triu(np.ones((i, j), bool), k=j - i + 1)
    dots = np.where(causal, mask_value, dots)
    e = np.exp(dots - dots.max(axis=-1, keepdims=True))
    attn = e / e.sum(axis=-1, keepdims=True)
    return attn @ v, attn
