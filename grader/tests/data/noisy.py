"""Test fixture: a correct attention that prints junk to stdout in every
way it can, including a forged reply line; the harness must keep all of it
off the protocol channel."""
import os
import sys

import numpy as np

print("junk at import time")


def attention(Q, K, V, mask):
    print("junk from print()")
    print('{"v":1,"id":1,"ok":true,"O":[[0]],"A":[[0]]}')  # a forged reply
    sys.stdout.write("junk from sys.stdout.write\n")
    sys.__stdout__.write("junk from sys.__stdout__\n")
    sys.__stdout__.flush()
    os.write(1, b"junk from os.write(1)\n")
    logits = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        logits = np.where(mask, -np.inf, logits)
    w = np.exp(logits - logits.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    return w @ V, w
