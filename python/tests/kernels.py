"""Kernels the client's tests check (imported again by attnlab's harness,
so they import nothing but NumPy and, where torch is installed, torch).

Calling convention (grader/PROTOCOL.md, "Kernels for attnlab check"):
fn(Q, K, V, mask) with Q (T_q x d_k), K (T_v x d_k), V (T_v x d_v) NumPy
float64 arrays and mask a bool array T_q x T_v (True = forbidden) or None;
returns O, or the pair (O, A).
"""
import numpy as np

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # the torch tests are skipped
    torch = None


def numpy_attention(Q, K, V, mask):
    """The definition in NumPy (float64), refusing what the text refuses."""
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError("inconsistent shapes")
    if mask is not None and mask.shape != (Q.shape[0], K.shape[0]):
        raise ValueError("the mask is not T_q x T_v")
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("a query row has every key forbidden")
        S = np.where(mask, -np.inf, S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A


def numpy_attention_no_scale(Q, K, V, mask):
    """Forgets the 1/sqrt(d_k) scale (a known mistake)."""
    O, A = numpy_attention(Q * np.sqrt(Q.shape[1]), K, V, mask)
    return O, A


def _torch_sdpa(q, k, v, allowed):
    """PyTorch's scaled dot-product attention; `allowed` is a bool mask with
    True = may attend (its convention, the opposite of attnlab's), or None.
    Returns O only."""
    if hasattr(F, "scaled_dot_product_attention"):  # torch >= 2.0
        return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    # torch 1.13 (Debian 12): the same function under its private name,
    # (query, key, value, attn_mask, dropout_p, need_attn_weights, is_causal).
    return F._scaled_dot_product_attention(q, k, v, allowed, 0.0, False, False)[0]


def torch_version():
    return tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])


def torch_fully_forbidden():
    """PyTorch's answer for a row with every key forbidden: NaN before 2.5,
    zeros from 2.5 on."""
    return "zeros" if torch_version() >= (2, 5) else "nan"


def torch_attention(Q, K, V, mask):
    """F.scaled_dot_product_attention in float64, the mask converted (~mask)."""
    q, k, v = (torch.from_numpy(x) for x in (Q, K, V))
    allowed = None if mask is None else ~torch.from_numpy(mask)
    return _torch_sdpa(q, k, v, allowed).numpy()


def torch_attention_float32(Q, K, V, mask):
    """The same kernel in float32 (inputs rounded to float32, O back to float64)."""
    q, k, v = (torch.from_numpy(x).float() for x in (Q, K, V))
    allowed = None if mask is None else ~torch.from_numpy(mask)
    return _torch_sdpa(q, k, v, allowed).double().numpy()


def torch_attention_mask_inverted(Q, K, V, mask):
    """The mistake: our mask forwarded as it is (True read as "may attend")."""
    q, k, v = (torch.from_numpy(x) for x in (Q, K, V))
    allowed = None if mask is None else torch.from_numpy(mask)
    return _torch_sdpa(q, k, v, allowed).numpy()
