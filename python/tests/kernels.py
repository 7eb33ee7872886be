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


def torch_attention_bfloat16(Q, K, V, mask):
    """The same kernel in bfloat16 (inputs rounded to bfloat16, O back to float64)."""
    q, k, v = (torch.from_numpy(x).bfloat16() for x in (Q, K, V))
    allowed = None if mask is None else ~torch.from_numpy(mask)
    return _torch_sdpa(q, k, v, allowed).double().numpy()


def torch_attention_bfloat16_float32_accumulation(Q, K, V, mask):
    """bfloat16 storage computed FlashAttention's way in PyTorch: bfloat16
    inputs, logits, maximum and sums in float32, the weights rounded to
    bfloat16 before P V (accumulated in float32), O rounded to bfloat16."""
    q, k, v = (torch.from_numpy(x).bfloat16() for x in (Q, K, V))
    if q.shape[1] != k.shape[1] or k.shape[0] != v.shape[0]:
        raise ValueError("inconsistent shapes")
    s = (q.float() @ k.float().T) / float(q.shape[1]) ** 0.5
    if mask is not None:
        m = torch.from_numpy(mask)
        if m.shape != s.shape:
            raise ValueError("the mask is not T_q x T_v")
        s = s.masked_fill(m, float("-inf"))
    p = torch.softmax(s, dim=-1).bfloat16()
    return (p.float() @ v.float()).bfloat16().double().numpy()


def numpy_attention_crops_mask(Q, K, V, mask):
    """Right on every valid input, O only, NaN for a row with every key
    forbidden (PyTorch before 2.5's convention); but a mask of the wrong
    shape is cut to T_q x T_v instead of refused (a known gap, no
    misconception of attention)."""
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        m = np.zeros(S.shape, dtype=bool)
        r, c = min(mask.shape[0], S.shape[0]), min(mask.shape[1], S.shape[1])
        m[:r, :c] = mask[:r, :c]
        S = np.where(m, -np.inf, S)
    with np.errstate(invalid="ignore"):
        E = np.exp(S - S.max(axis=1, keepdims=True))
        return (E / E.sum(axis=1, keepdims=True)) @ V


def numpy_attention_nan_rows(Q, K, V, mask):
    """The definition, with NaN (not an error) for a row whose every key is
    forbidden: PyTorch before 2.5's convention."""
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError("inconsistent shapes")
    if mask is not None and mask.shape != (Q.shape[0], K.shape[0]):
        raise ValueError("the mask is not T_q x T_v")
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    with np.errstate(invalid="ignore"):
        E = np.exp(S - S.max(axis=1, keepdims=True))
        return (E / E.sum(axis=1, keepdims=True)) @ V
