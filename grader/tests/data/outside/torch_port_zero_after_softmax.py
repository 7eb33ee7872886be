# A PyTorch user's attention ported to NumPy line by line: the probabilities
# come from an unmasked softmax and the padded keys are cleared afterwards,
# as in `attn = attn.masked_fill(mask, 0.0)` written after F.softmax.
# Expected: post_softmax_mask, or no key.
# exercise: F4
import numpy as np


def _softmax(x, dim=-1):
    # torch.softmax(x, dim) equivalent
    x_max = np.amax(x, axis=dim, keepdims=True)
    y = np.exp(x - x_max)
    return y / np.sum(y, axis=dim, keepdims=True)


def _masked_fill(t, mask, value):
    out = t.copy()
    out[mask] = value
    return out


def scaled_dot_product_attention(Q, K, V, mask=None):
    query, key, value = (np.array(t, dtype=np.float64) for t in (Q, K, V))
    if query.shape[-1] != key.shape[-1]:
        raise ValueError(f"query dim {query.shape[-1]} != key dim {key.shape[-1]}")
    if key.shape[0] != value.shape[0]:
        raise ValueError("key and value must have the same length")
    d_head = query.shape[-1]
    attn = query @ np.swapaxes(key, -2, -1) * (1.0 / np.sqrt(d_head))
    attn = _softmax(attn, dim=-1)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != attn.shape:
            raise ValueError(f"mask shape {mask.shape} != {attn.shape}")
        if mask.all(axis=-1).any():
            raise ValueError("some query has no key to attend to")
        attn = _masked_fill(attn, mask, 0.0)  # padded keys get no weight
    out = attn @ value
    return out, attn
