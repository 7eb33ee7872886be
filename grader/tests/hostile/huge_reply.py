# exercise: F3
# expect-exit: 1
# expect-text: longer than [0-9]+ bytes, the most an answer to this case can take
# expect-text: the answer is far larger than the T_q x d_v = [0-9]+ x [0-9]+ O and T_q x T_v = [0-9]+ x [0-9]+ A this case asks for
"""Hostile: answers every case with a weight matrix of 400,000 entries
(a reply of about 7 MB, a hundred times the most an answer to the small
cases can take); the grader must stop reading at the size the request
implies instead of holding it. (Each such reply ends the process, so the
harness is started again for the next case: the reply's size is what each
of these calls costs, most of it spent writing the reply.)"""
import numpy as np


def scaled_dot_product_attention(Q, K, V, mask=None):
    A = np.full((Q.shape[0], 400_000 // max(Q.shape[0], 1) + 1), 0.123456789012345)
    return np.zeros((Q.shape[0], np.asarray(V).shape[1])), A
