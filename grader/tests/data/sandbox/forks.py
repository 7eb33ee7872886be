# exercise: F3
"""Test fixture: on its first case, starts up to 200 processes that sleep a
few seconds, and reports in the error it raises how many it could start
before fork() failed (RLIMIT_NPROC). The processes exit by themselves."""

import os
import time

_seen = None


def _fork_many(n=200):
    started = 0
    try:
        for _ in range(n):
            pid = os.fork()
            if pid == 0:
                time.sleep(3)
                os._exit(0)
            started += 1
    except OSError as e:
        return "fork failed after %d processes: %s" % (started, e.strerror)
    return "forked all %d processes" % started


def scaled_dot_product_attention(Q, K, V, mask=None):
    global _seen
    if _seen is None:
        _seen = _fork_many()
    raise ValueError(_seen)
