# Breaks on every call (a typo'd attribute): a fault, never an inverted mask.
# exercise: F3
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    S = np.asarray(Q).dot(np.asarray(K).T) / np.sqrt(np.asarray(Q).shape[1])
    return S.softmax(axis=1) @ V, S  # numpy arrays have no softmax
