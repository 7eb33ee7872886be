# Multi-head attention as a "transformer from scratch in NumPy" tutorial
# writes it: the per-head projections fused into one d_model x (h d_k)
# matrix, split_heads / combine_heads by reshape and transpose, a batched
# (h, T, T) score tensor. The scores are divided by sqrt(self.d_model), the
# tutorial's habit when d_model is the only width it keeps, instead of the
# head width sqrt(d_k).
# Expected: mh_scale_by_d_model, or no key.
# exercise: M1
import numpy as np


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


class MultiHeadAttention:
    def __init__(self, W_Q, W_K, W_V, W_O):
        self.num_heads = len(W_Q)
        self.d_model = W_Q[0].shape[0]
        self.depth_k = W_Q[0].shape[1]
        self.depth_v = W_V[0].shape[1]
        # fuse the heads: head i owns columns i*depth .. (i+1)*depth - 1
        self.wq = np.concatenate([np.asarray(w, float) for w in W_Q], axis=1)
        self.wk = np.concatenate([np.asarray(w, float) for w in W_K], axis=1)
        self.wv = np.concatenate([np.asarray(w, float) for w in W_V], axis=1)
        self.wo = np.asarray(W_O, float)
        if self.wk.shape != self.wq.shape:
            raise ValueError("W_Q and W_K heads must have the same shape")
        if self.wo.shape[0] != self.num_heads * self.depth_v:
            raise ValueError("W_O must have num_heads * depth_v rows")

    def split_heads(self, x, depth):
        """(seq_len, num_heads * depth) -> (num_heads, seq_len, depth)"""
        seq_len = x.shape[0]
        return x.reshape(seq_len, self.num_heads, depth).transpose(1, 0, 2)

    def combine_heads(self, x):
        """(num_heads, seq_len, depth) -> (seq_len, num_heads * depth)"""
        num_heads, seq_len, depth = x.shape
        return x.transpose(1, 0, 2).reshape(seq_len, num_heads * depth)

    def scaled_dot_product_attention(self, q, k, v, mask=None):
        matmul_qk = q @ k.transpose(0, 2, 1)            # (h, T, T)
        scaled = matmul_qk / np.sqrt(self.d_model)
        if mask is not None:
            scaled = np.where(mask[None, :, :], -np.inf, scaled)
        weights = softmax(scaled, axis=-1)
        return weights @ v, weights

    def __call__(self, x, mask=None):
        x = np.asarray(x, float)
        if mask is not None:
            mask = np.asarray(mask, bool)
            if mask.all(axis=-1).any():
                raise ValueError("a position may attend to nothing")
        q = self.split_heads(x @ self.wq, self.depth_k)
        k = self.split_heads(x @ self.wk, self.depth_k)
        v = self.split_heads(x @ self.wv, self.depth_v)
        attn, _ = self.scaled_dot_product_attention(q, k, v, mask)
        return self.combine_heads(attn) @ self.wo


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None):
    return MultiHeadAttention(W_Q, W_K, W_V, W_O)(X, mask)
