"""Exercise F4 (section 32.2.8): the corrected masking, in NumPy. Skeleton.

post_softmax_mask.py (in this folder) masks AFTER the softmax. Find why its
rows stop summing to 1, then write the corrected function below (the lab's
signature) and fill in answers_skeleton.json (save it as answers.json):
    attnlab grade skeleton.py --answers answers.json
The comment line below tells the grader this file answers F4 (the function
name alone would say F3). As it stands, the skeleton refuses every case.
"""
# exercise: F4

import numpy as np  # noqa: F401  (you will need it)


def scaled_dot_product_attention(Q, K, V, mask=None):
    """The F3 contract (README.md): return (O, A) with the mask (True =
    forbidden) applied to the logits before the softmax."""
    raise NotImplementedError("F4: the corrected function is not written yet")
