"""Test fixture: defines no entry function the harness looks for."""


def attn(Q, K, V, mask=None):
    return Q, K
