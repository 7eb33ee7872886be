# Ported from a GPT-style decoder where the mask argument only said "this is
# a decoder": whenever a mask is passed, the causal triangle is built and
# used, whatever the mask says. Expected: causal_assumed, or no key.
# exercise: F3
import numpy as np


def causal_bias(T_q, T_v):
    # -inf above the diagonal: query t sees keys 0..t
    return np.triu(np.full((T_q, T_v), -np.inf), k=1)


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    if Q.shape[1] != K.shape[1] or K.shape[0] != V.shape[0]:
        raise ValueError("bad shapes")
    is_causal = mask is not None
    att = Q @ K.T * (1.0 / np.sqrt(K.shape[1]))
    if is_causal:
        att = att + causal_bias(*att.shape)
    att = np.exp(att - att.max(axis=1, keepdims=True))
    att /= att.sum(axis=1, keepdims=True)
    return att @ V, att
