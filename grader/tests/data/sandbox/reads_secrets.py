# exercise: F3
"""Test fixture (a template: the test fills in @CONFIG@, @REPO@ and @SOLUTION@).

It tries to read the teacher configuration and a model solution and to list
the repository, at run time, and reports what it saw in the error it raises
on every case. Inside the sandbox it must see none of them; the test checks
that the grading still completes and that no secret reaches the report."""

import os

CONFIG = "@CONFIG@"
REPO = "@REPO@"
SOLUTION = "@SOLUTION@"


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except Exception as e:  # noqa: BLE001 (the point is to report anything)
        return "cannot read (%s)" % type(e).__name__


def _look():
    seen = ["config: " + _read(CONFIG), "solution: " + _read(SOLUTION)]
    try:
        seen.append("repo: " + ",".join(sorted(os.listdir(REPO))))
    except Exception as e:  # noqa: BLE001
        seen.append("repo: cannot list (%s)" % type(e).__name__)
    return "; ".join(seen)


def scaled_dot_product_attention(Q, K, V, mask=None):
    raise ValueError("saw " + _look())
