"""Backward kernels the client's tests check (--op attention_backward),
made from PyTorch forwards with attnlab_check.torch_backward (imported again
by attnlab's harness, so they import nothing but NumPy, torch where it is
installed, and the checkout's attnlab_check).

Calling convention (grader/PROTOCOL.md): fn(Q, K, V, dO, mask=None,
scale=None, causal=False) -> (dQ, dK, dV).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import attnlab_check  # noqa: E402  (from the checkout)

from kernels import _torch_sdpa, torch  # noqa: E402,F401  (the same forward as the forward's tests)


def sdpa(Q, K, V, mask=None, scale=None, causal=False):
    """PyTorch's CPU scaled dot-product attention; attnlab's mask (True =
    forbidden) converted to torch's boolean attn_mask (True = may attend)."""
    return _torch_sdpa(Q, K, V, None if mask is None else ~mask)


def sdpa_mask_not_converted(Q, K, V, mask=None, scale=None, causal=False):
    """The mistake: attnlab's mask handed to torch as it is."""
    return _torch_sdpa(Q, K, V, mask)


def sdpa_no_scale(Q, K, V, mask=None, scale=None, causal=False):
    """The mistake: the logits not scaled by 1/sqrt(d_k) (Q scaled up to undo it)."""
    return _torch_sdpa(Q * Q.shape[-1] ** 0.5, K, V, None if mask is None else ~mask)


def keys_unused(Q, K, V, mask=None, scale=None, causal=False):
    """The mistake: a forward that leaves Q and K out of the graph (every
    query the plain average of V), so their gradients are zero."""
    return V.mean(dim=0, keepdim=True).expand(Q.shape[0], V.shape[1])


torch_backward_float32 = attnlab_check.torch_backward(sdpa, "float32")
torch_backward_bfloat16 = attnlab_check.torch_backward(sdpa, "bfloat16")
torch_backward_float64 = attnlab_check.torch_backward(sdpa, "float64")
torch_backward_mask_not_converted = attnlab_check.torch_backward(sdpa_mask_not_converted, "float64")
torch_backward_no_scale = attnlab_check.torch_backward(sdpa_no_scale, "float64")
torch_backward_keys_unused = attnlab_check.torch_backward(keys_unused, "float64")


def numpy_backward(Q, K, V, dO, mask=None, scale=None, causal=False):
    """The definition (Dao et al. 2022, Appendix B.2) in NumPy, refusing a
    fully forbidden row."""
    c = 1.0 / np.sqrt(Q.shape[1]) if scale is None else scale
    S = c * Q @ K.T
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("a query row has every key forbidden")
        S = np.where(mask, -np.inf, S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    P = E / E.sum(axis=1, keepdims=True)
    dV = P.T @ dO
    dP = dO @ V.T
    dS = P * (dP - (dP * P).sum(axis=1, keepdims=True))
    return c * dS @ K, c * dS.T @ Q, dV


def two_gradients(Q, K, V, dO, mask=None, scale=None, causal=False):
    """The mistake: dQ and dK returned, dV left out."""
    return numpy_backward(Q, K, V, dO, mask, scale, causal)[:2]
