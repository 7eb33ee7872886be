# mutant: fill_then_zeroed
# exercise: F3
# misconception: forbidden logits are filled with -1e9 and the softmax is then multiplied by the keep mask, without renormalising: a fully forbidden row gives zeros, and so does a row whose allowed logits all lie below -1e9.
# violates: Lemma 2 and section 32.2.4 (-inf before the softmax; a fully forbidden row is an error)
# caught by: fully_forbidden_refused
# key: fill_then_zeroed
# key parameter: fill=-1e9
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    keep = np.ones_like(S) if mask is None else 1.0 - np.asarray(mask, dtype=float)
    S = np.where(keep > 0, S, -1e9)  # BUG: a finite fill ...
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True) * keep  # ... and the weights zeroed after the softmax
    return A @ V, A
