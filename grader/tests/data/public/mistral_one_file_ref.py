# Origin: mistralai/mistral-inference (formerly mistral-src), one_file_ref.py,
# Attention.forward and Transformer.forward's mask (torch.log(torch.tril(ones))),
# model loaded with dtype=torch.float16 (Transformer.from_folder's default), commit
# a4fe135b68c70f0c7f4b269f8de92f00a0859c88 (the last commit holding the file; it
# was removed in 12432c4).
# Licence: Apache-2.0.
# Not copied: a NumPy reimplementation of the arithmetic.
# Arithmetic kept: q, k, v in float16; scores = matmul(q, k^T) (float32 accumulation
# rounded to float16, as torch's half matmul) * head_dim**-0.5 (rounded to float16);
# scores += mask (0 / -inf, log of the lower triangle); scores.float(); softmax in
# float32 (max-subtracted); .type_as(query) back to float16; output = matmul(weights,
# v) accumulated in float32 and rounded to float16.
# Changed: torch -> NumPy; one head (no grouped-query repeat_kv, no rotary
# embedding, no cache); the causal mask replaced by the mask argument (true =
# forbidden -> -inf); returns (O, A).
# Expected departures (before running): float16 storage (inputs, logits, weights
# and output rounded to float16; logits past 65504 overflow to inf) with float32
# accumulation and softmax; a fully forbidden row: NaN, not refused. Text run:
# low_precision (precision = float16) + fully_forbidden_answered (NaN); with
# --precision float16 --accumulate float32 --fully-forbidden nan: pass expected.
import numpy as np


@np.errstate(all="ignore")
def attention(Q, K, V, mask=None):
    q, k, v = (np.asarray(x, np.float16) for x in (Q, K, V))
    scores = (q.astype(np.float32) @ k.astype(np.float32).T).astype(np.float16)
    scale = q.shape[-1] ** -0.5
    scores = (scores.astype(np.float32) * np.float32(scale)).astype(np.float16)
    if mask is not None:
        scores = scores + np.where(np.asarray(mask, bool), np.float16(-np.inf), np.float16(0))
    s = scores.astype(np.float32)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    w = (e / e.sum(axis=-1, keepdims=True)).astype(np.float16)
    out = (w.astype(np.float32) @ v.astype(np.float32)).astype(np.float16)
    return out, w
