# Origin: onnx/onnx, onnx/reference/ops/op_attention.py (the reference
# implementation of the ONNX Attention operator, opset 23), _softmax and
# _compute_attention, commit 335daa9b9f258b8be806283b59f8c3315273afcf (read
# through the code index at that commit).
# Licence: Apache-2.0.
# Not copied: a NumPy reimplementation of the arithmetic for one head, 2-D.
# Arithmetic kept: no cast: the work is in the inputs' dtype (float64 here, as the
# checker passes them); scale = 1 / np.sqrt(head_size), then scale =
# np.sqrt(scale), and BOTH Q and K multiplied by it before the product (Q * scale)
# (K^T * scale); a boolean attn_mask (ONNX's: True = may attend) turned by
# np.logical_not into a bias of -inf where forbidden (np.ma filled with
# float("-inf")) and 0 elsewhere, ADDED to the product; _softmax: x - max, exp,
# divided by the sum; output = softmax @ V. No softcap, no past key/value.
# Changed: 4-D (batch, heads) -> one 2-D head; our mask (true = forbidden) given as
# np.logical_not of ONNX's; returns (O, A).
# Expected departures (before running): a fully forbidden row: max = -inf,
# -inf - (-inf) = NaN: answered NaN, not refused. Nothing else (float64, scale
# 1/sqrt(d_k) split as d_k^-1/4 on each side, max-subtracted).
# Expected names: text run: fully_forbidden_answered (answer = NaN) on every
# failure; own [--fully-forbidden nan]: pass.
import numpy as np


def attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(x) for x in (Q, K, V))
    scale = np.sqrt(1 / np.sqrt(Q.shape[-1]))
    attn_bias = np.zeros((Q.shape[0], K.shape[0]), dtype=Q.dtype)
    if mask is not None:
        forbidden = np.asarray(mask, bool)
        attn_bias = np.where(forbidden, np.array(float("-inf"), Q.dtype), attn_bias)
    qk = np.matmul(Q * scale, K.T * scale)
    x = qk + attn_bias
    x_max = np.max(x, axis=-1, keepdims=True)
    tmp = np.exp(x - x_max)
    s = np.sum(tmp, axis=-1, keepdims=True)
    p = tmp / s
    return np.matmul(p, V), p
