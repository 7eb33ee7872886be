import numpy as np

EPS = 1e-8


def softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / (np.sum(e, axis=axis, keepdims=True) + EPS)  # eps: never divide by zero
