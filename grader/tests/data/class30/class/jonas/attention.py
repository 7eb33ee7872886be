# Jonas -- F3, reuses my F2 softmax
import numpy as np

from masked_softmax import masked_softmax


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q, np.float64), np.asarray(K, np.float64), np.asarray(V, np.float64)
    if Q.shape[1] != K.shape[1]:
        raise ValueError("Q is %s and K is %s: d_k differs" % (Q.shape, K.shape))
    if V.shape[0] != K.shape[0]:
        raise ValueError("V needs as many rows as K")
    A = masked_softmax(Q @ K.T / np.sqrt(Q.shape[1]), mask)
    return A @ V, A
