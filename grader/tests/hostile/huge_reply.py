# exercise: F3
# expect-exit: 1
# expect-text: longer than [0-9]+ bytes, the most an answer to this case can take
# expect-text: the answer is far larger than the T_q x d_v = [0-9]+ x [0-9]+ O and T_q x T_v = [0-9]+ x [0-9]+ A this case asks for
"""Hostile: answers every case with a weight matrix of 2 million entries
(a reply of about 40 MB); the grader must stop reading at the size the
request implies instead of holding it."""
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    A = np.full((Q.shape[0], 2_000_000 // max(Q.shape[0], 1) + 1), 0.123456789012345)
    return np.zeros((Q.shape[0], np.asarray(V).shape[1])), A
