# exercise: F3
# expect-exit: 1
# expect-text: did not finish loading \(importing the file and saying hello to the grader\) within 3 s
# args: --startup-timeout 3 --timeout 3
"""Hostile: loops forever while the file is imported, so the harness never
says hello; the report must say the file did not finish loading, not only that a protocol message is missing."""
import numpy as np

while True:
    pass


def scaled_dot_product_attention(Q, K, V, mask=None):
    return np.zeros((Q.shape[0], V.shape[1])), np.zeros((Q.shape[0], K.shape[0]))
