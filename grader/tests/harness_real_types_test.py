#!/usr/bin/env python3
"""The Python harness (grader/harness/attnlab_harness.py) accepts an answer
in every number format attnlab knows: for every name `attnlab check
--precision` lists when it refuses an unknown one (the formats of
reference/src/number_format.cpp's table), `attnlab check --precision NAME`
passes a correct kernel whose answers are arrays of that format. The
harness keeps no list of its own: the grader gives it the table's names.

A format NumPy has no dtype for on this machine (bfloat16 without
ml_dtypes) cannot be returned; its kernel then checks, inside the harness
the grader launched (in its sandbox), that the harness was given the name.

Usage: harness_real_types_test.py ATTNLAB SOLUTION.py
(SOLUTION.py: F3's model solution, whose answers each kernel rounds)
(exit status 0: every format is accepted)
"""
import os
import re
import subprocess
import sys
import tempfile

KERNEL = '''
import importlib.util
import sys

import numpy as np

FORMAT = %(format)r
_spec = importlib.util.spec_from_file_location("f3_solution", %(solution)r)
_solution = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_solution)


def _dtype():
    try:
        return np.dtype(FORMAT)
    except TypeError:
        pass
    try:
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, FORMAT))
    except (ImportError, AttributeError):
        return None


DTYPE = _dtype()
if DTYPE is None:
    harness = sys.modules["__main__"]  # the harness runs this file
    if FORMAT not in getattr(harness, "REAL_TYPE_NAMES", ()):
        raise RuntimeError("the harness was not given the format %%s: %%r"
                           %% (FORMAT, getattr(harness, "REAL_TYPE_NAMES", None)))


def attention(Q, K, V, mask=None):
    O, A = _solution.scaled_dot_product_attention(Q, K, V, mask)
    if DTYPE is None:
        return O, A
    return O.astype(DTYPE), A.astype(DTYPE)
'''


def attnlab_formats(attnlab, kernel):
    """The formats attnlab lists on refusing an unknown --precision."""
    run = subprocess.run([attnlab, "check", kernel, "--precision", "no_such_format", "--cases", "1"],
                         capture_output=True, text=True)
    found = re.search(r"'no_such_format' is not a type \(([^)]*)\)", run.stderr)
    if run.returncode != 2 or not found:
        sys.exit("attnlab did not refuse --precision no_such_format with its list (exit %d): %s"
                 % (run.returncode, run.stderr))
    return [name.strip() for name in re.split(r",| and ", found.group(1)) if name.strip()]


def main():
    attnlab, solution = sys.argv[1], os.path.abspath(sys.argv[2])
    formats = attnlab_formats(attnlab, solution)
    failed = []
    with tempfile.TemporaryDirectory(prefix="attnlab-real-types-") as folder:
        for f in formats:
            kernel = os.path.join(folder, "kernel_%s.py" % f)
            with open(kernel, "w", encoding="utf-8") as out:
                out.write(KERNEL % {"format": f, "solution": solution})
            run = subprocess.run([attnlab, "check", kernel, "--entry", "attention", "--precision", f,
                                  "--cases", "20", "--seed", "1"], capture_output=True, text=True)
            ok = run.returncode == 0
            print("%s: %s" % (f, "accepted" if ok else "NOT accepted (exit %d)" % run.returncode),
                  file=sys.stderr)
            if not ok:
                print(run.stdout + run.stderr, file=sys.stderr)
                failed.append(f)
    if len(formats) < 2 or failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
