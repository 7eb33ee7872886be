# A PyTorch user's MultiHeadAttention module ported to NumPy for a unit
# test: Linear layers without bias, forward(x, mask=None), the heads stacked
# with einsum, and a module-level attention() that masks with -inf and
# refuses a row with nothing to attend to. forward() takes the mask but calls
# attention(q, k, v) without it, so the mask never reaches the heads.
# Expected: mh_mask_not_forwarded, or no key.
# exercise: M1
import numpy as np


def attention(q, k, v, attn_mask=None):
    """q, k: (heads, T, d_k); v: (heads, T, d_v); attn_mask: (T, T), True = masked."""
    d_k = q.shape[-1]
    scores = np.einsum("htd,hsd->hts", q, k) / np.sqrt(d_k)
    if attn_mask is not None:
        if attn_mask.all(axis=-1).any():
            raise ValueError("attn_mask leaves a query with no key")
        scores = np.where(attn_mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("hts,hsd->htd", p, v)


class Linear:
    def __init__(self, weight):
        self.weight = np.asarray(weight, dtype=np.float64)  # (in_features, out_features)

    def __call__(self, x):
        return x @ self.weight


class MultiheadSelfAttention:
    def __init__(self, W_Q, W_K, W_V, W_O):
        self.q_proj = [Linear(w) for w in W_Q]
        self.k_proj = [Linear(w) for w in W_K]
        self.v_proj = [Linear(w) for w in W_V]
        self.out_proj = Linear(W_O)
        self.n_head = len(W_Q)

    def forward(self, x, mask=None):
        x = np.asarray(x, dtype=np.float64)
        q = np.stack([proj(x) for proj in self.q_proj])  # (heads, T, d_k)
        k = np.stack([proj(x) for proj in self.k_proj])
        v = np.stack([proj(x) for proj in self.v_proj])
        if q.shape != k.shape:
            raise ValueError("query and key projections differ in shape")
        y = attention(q, k, v)                           # (heads, T, d_v)
        y = np.concatenate(list(y), axis=-1)             # (T, heads * d_v)
        if y.shape[-1] != self.out_proj.weight.shape[0]:
            raise ValueError("out_proj expects %d inputs" % self.out_proj.weight.shape[0])
        return self.out_proj(y)

    __call__ = forward


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
    return MultiheadSelfAttention(W_Q, W_K, W_V, W_O)(X, mask=mask)
