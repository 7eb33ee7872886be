# Origin: karpathy/ng-video-lecture, gpt.py, class Head.forward, commit
# d5ae96fc27fc186140113e18d6fcb92dcb9cc085 (read in a snapshot of the repository;
# at that commit the logits are scaled by C**-0.5 with B,T,C = x.shape; the file's
# newest commit, 4c8e9028cc4fe417100e1e27db077fca0e0477f2, scales by
# k.shape[-1]**-0.5, the head size, and would be the nanoGPT case).
# Licence: MIT (README.md, "License: MIT"; the repository has no LICENSE file).
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: wei = q @ k^T * C**-0.5, where C is the width of the layer's
# input x (n_embd = 384 in the file), NOT the head size of q and k (head_size =
# n_embd // n_head = 64 there); C**-0.5 is a Python float that torch applies to the
# float32 tensor as float32; wei.masked_fill(tril == 0, float('-inf')) (tril 1 =
# may attend); F.softmax(wei, dim=-1) (max-subtracted); out = wei @ v; float32
# (torch's default float).
# Changed: torch -> NumPy float32; the key/query/value projections (from C = 384
# to the head size) and the dropout (inference) left out, so Q, K, V are the
# projected q, k, v and C is kept at the file's n_embd = 384 whatever d_k is (the
# only reading of "C" that keeps the source's arithmetic once x is gone); the
# causal tril replaced by the mask argument (true = forbidden); returns (O, A).
# Expected departures (before running): the logits scaled by 1/sqrt(384) for every
# d_k, not 1/sqrt(d_k) (right only when d_k = 384; for the battery's small d_k the
# logits are too small: a flatter softmax); float32; a fully forbidden row: every
# logit -inf, exp(-inf - (-inf)) = NaN: answered NaN, not refused. Expected names:
# a constant scale is not among wrong_scale's factors (none, 1/d_k, 1/sqrt(d_v),
# 1/sqrt(T_v), sqrt(d_k)): "no known mistake" expected on the failures the scale
# shows in, both runs (text; own [--precision float32 --fully-forbidden nan]);
# fully_forbidden_refused in the text run may be named low_precision (float32) +
# fully_forbidden_answered (NaN) (a fully forbidden row hides the scale) - unsure.
import numpy as np

N_EMBD = 384  # C: the width of x, the layer's input (gpt.py's n_embd)


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    wei = (q @ k.T) * np.float32(N_EMBD ** -0.5)
    if mask is not None:
        wei = np.where(np.asarray(mask, bool), np.float32(-np.inf), wei)
    with np.errstate(invalid="ignore"):
        e = np.exp(wei - wei.max(axis=-1, keepdims=True))
        wei = e / e.sum(axis=-1, keepdims=True)
    return wei @ v, wei
