# mutant: tril_as_mask
# exercise: C1
# misconception: the causal mask is built as a lower triangle of ones (torch.nn.functional.scaled_dot_product_attention's "True = may attend" convention), so true marks the allowed keys instead of the forbidden ones.
# violates: the mask convention of section 32.2.4 (true = forbidden)
# caught by: causal_mask_matches_definition
# key: inverted_mask
# key note: true marks the allowed keys (j <= i)
import numpy as np


def causal_mask(T_q, T_v, alignment="top_left"):
    offset = T_v - T_q if alignment == "bottom_right" else 0
    return np.tril(np.ones((T_q, T_v), dtype=bool), k=offset)  # BUG: marks the allowed keys


def padding_mask(T_q, T_v, key_length):
    return np.tile(np.arange(T_v) >= key_length, (T_q, 1))
