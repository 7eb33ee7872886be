# Origin: NVIDIA/Megatron-LM, megatron/core/transformer/dot_product_attention.py
# (DotProductAttention.forward, commit 489c559bc51318a99a2eef40986f36542288785e),
# megatron/core/fusions/fused_softmax.py (FusedScaleMaskSoftmax.forward_torch_softmax,
# the unfused path taken for float32 inputs, commit
# 550f9c44589efb85af6c5a11da8fbc8c3491b636) and megatron/core/transformer/utils.py
# (attention_mask_func, commit fe1959e21cf443d3af82a54fd16fad7a9e184040); three
# commits: the code index holds each file at one version (read there).
# Licence: BSD-3-Clause (Megatron-LM's LICENSE; NVIDIA copyright).
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: float32 (fp16 and bf16 off: input_in_float16 false, the
# torch path); torch.baddbmm(buffer, q, k^T, beta=0.0, alpha=1.0 / norm_factor)
# with norm_factor = math.sqrt(head dim) (apply_query_key_layer_scaling off, so
# coeff = None and no second scale); mask_func = attention_mask_func:
# masked_fill_(mask, -10000.0) with the mask TRUE = forbidden (as ours);
# torch.nn.Softmax (max-subtracted); then probs * (1 - mask.all(axis=-1)): a row
# whose keys are all masked is set to zeros; context = probs @ v.
# Changed: torch -> NumPy float32; one head, no tensor parallelism, no dropout
# (inference); returns (O, A).
# Expected departures (before running): float32; finite fill -1e4: forbidden keys
# get weight where the allowed logits lie near or below -1e4 (exact_zeros); a fully
# forbidden row answered ZEROS (the explicit all-masked guard), not refused.
# Expected names: text run: finite_fill (fill = -1e4) + low_precision (float32),
# the zeros answer to an empty row possibly as fully_forbidden_answered (zeros);
# own [--precision float32 --fully-forbidden zeros]: finite_fill (fill = -1e4).
import numpy as np


def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float32) for x in (Q, K, V))
    norm_factor = np.sqrt(q.shape[-1])
    scores = (q @ k.T) * np.float32(1.0 / norm_factor)
    if mask is not None:
        m = np.asarray(mask, bool)
        scores = np.where(m, np.float32(-10000.0), scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    probs = e / e.sum(axis=-1, keepdims=True)
    if mask is not None:
        all_k_masked = m.all(axis=-1)
        probs = probs * (np.float32(1.0) - all_k_masked.astype(np.float32))[:, None]
    return probs @ v, probs
