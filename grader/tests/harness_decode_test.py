#!/usr/bin/env python3
"""The Python harness's request decoding (grader/harness/attnlab_harness.py,
decode_matrix): a matrix of floats (copied by NumPy in one call) and a matrix
with other entries (read entry by entry) both come out as the doubles the
request holds, bit for bit, in the request's shape, as a fresh writable
float64 array; a malformed matrix is refused with the message naming the
row or the entry, whichever path it would have taken.

Usage: harness_decode_test.py HARNESS.py   (exit status 0: every check held)
"""
import importlib.util
import math
import struct
import sys


def load(path):
    spec = importlib.util.spec_from_file_location("attnlab_harness_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # moves fd 1 to stderr: this test reports on stderr
    return module


def bits(x):
    return struct.pack("<d", x)


def expected(rows):
    """The doubles of a request's rows, read one by one from the protocol's
    rules (a number as it is, "NaN" / "Infinity" / "-Infinity" as named)."""
    named = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
    return [[named[x] if isinstance(x, str) else float(x) for x in row] for row in rows]


def main():
    h = load(sys.argv[1])
    failures = []

    def check(what, ok):
        if not ok:
            failures.append(what)

    tiny = 5e-324
    cases = {
        "floats": [[0.5, -0.0, 1e308], [tiny, -2.5, 0.1]],
        "one row": [[1.0, 2.0, 3.0, 4.0]],
        "one column": [[1.0], [-1.0], [0.0]],
        "an integer entry": [[1.0, 2], [3.0, 4.0]],
        "a huge integer": [[1.0, 10 ** 400 // 10 ** 100], [3.0, 4.0]],
        "named non-finite entries": [["NaN", 1.0], ["-Infinity", "Infinity"]],
    }
    for what, rows in cases.items():
        M = h.decode_matrix({"Q": rows}, "Q")
        want = expected(rows)
        check(what + ": dtype float64", M.dtype.str == "<f8")
        check(what + ": shape", M.shape == (len(rows), len(rows[0])))
        check(what + ": writable, owning or a view of a fresh array",
              M.flags.writeable and (M.base is None or M.base.base is None))
        check(what + ": the same doubles, bit for bit",
              all(bits(M[i, j]) == bits(want[i][j])
                  for i in range(len(rows)) for j in range(len(rows[0]))))

    # The shape comes from "shapes" when given (an empty matrix).
    M = h.decode_matrix({"Q": [], "shapes": {"Q": [0, 3]}}, "Q")
    check("empty: shape (0, 3)", M.shape == (0, 3))
    M = h.decode_matrix({"Q": [[], []], "shapes": {"Q": [2, 0]}}, "Q")
    check("2 x 0: shape (2, 0)", M.shape == (2, 0))

    refused = {
        "a short row": ({"Q": [[1.0, 2.0], [3.0]]}, "Q row 1 does not have 2 entries"),
        "a row that is no list": ({"Q": [[1.0, 2.0], 3.0]}, "Q row 1 does not have 2 entries"),
        "an unnamed string": ({"Q": [[1.0, "x"]]}, "Q[0][1] holds the string 'x'"),
        "a bool": ({"Q": [[1.0], [True]]}, "Q[1][0] holds True, expected a number"),
        "no rows": ({"K": [[1.0]]}, "Q is missing or not a list of rows"),
    }
    for what, (req, message) in refused.items():
        try:
            h.decode_matrix(req, "Q")
            failures.append(what + ": not refused")
        except h.BadRequest as e:
            check("%s: message %r, expected %r" % (what, str(e), message), str(e) == message)

    # A float entry among rows of floats is never taken for another type:
    # a long row (the case the one-call copy is for) comes out exactly.
    row = [float(k) / 7.0 for k in range(4096)]
    M = h.decode_matrix({"K": [row, row[::-1]]}, "K")
    check("long rows: the same doubles",
          M[0].tobytes() == struct.pack("<4096d", *row) and
          M[1].tobytes() == struct.pack("<4096d", *row[::-1]))

    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    print("%d checks failed" % len(failures), file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
