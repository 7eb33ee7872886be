# mutant: abs_weights
# exercise: F1
# misconception: the logits are normalised by the sum of their absolute values instead of exponentiated.
# violates: the softmax definition, section 32.2.4 (A_ij = exp(S_ij) / sum_j' exp(S_ij'))
# caught by: oracle_agreement
# key: abs_weights
import numpy as np


def softmax_rows(S):
    if np.isneginf(S).all(axis=1).any():
        raise ValueError("a row has no finite logit")
    W = np.where(np.isneginf(S), 0.0, np.abs(S) + 1.0)  # BUG: not an exponential
    return W / W.sum(axis=1, keepdims=True)
