# Masks written by a PyTorch user for torch.nn.functional.scaled_dot_product_attention,
# whose boolean attn_mask means True = "takes part in attention": the causal
# mask is torch.tril(ones) (moved right by T_v - T_q for is_causal with a KV
# cache, as torch's causal_lower_right does) and the padding mask marks the
# real tokens. Ported to NumPy as is, without turning the convention round
# for this text (True = forbidden).
# Expected: inverted_mask, or no key.
# exercise: C1
import numpy as np


def causal_mask(T_q, T_v, alignment="top_left"):
    diagonal = 0 if alignment == "top_left" else T_v - T_q
    return np.tril(np.ones((T_q, T_v), dtype=bool), k=diagonal)


def padding_mask(T_q, T_v, key_length):
    key_padding = np.arange(T_v) < key_length   # True = real token, attend
    return np.broadcast_to(key_padding[None, :], (T_q, T_v)).copy()
