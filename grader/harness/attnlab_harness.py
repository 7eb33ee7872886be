#!/usr/bin/env python3
"""attnlab harness for Python submissions (grader/PROTOCOL.md, attnlab-protocol/1).

Usage: python3 attnlab_harness.py --exercise ID --entries NAMES --ops OPS
                                  [--companions NAMES] [--entry NAME]
                                  --real-types NAMES SUBMISSION.py
       python3 attnlab_harness.py --exercise batched_attention
                                  [--entry NAME] --real-types NAMES SUBMISSION.py

An exercise's spec comes from the grader (exercises/registry.json): --entries
the function names accepted, in order of preference (comma-separated), --ops
the protocol ops it answers, --companions the names of a second function it
needs (T1's naive attention answers the op "attention"; C1's padding_mask).
The harness answers each op the same way whatever the exercise.
--real-types the number formats an answer may hold (comma-separated): the
names of the grader's number-format table, so the harness keeps no list.

--exercise batched_attention is no exercise of the text: it serves the op
batched_attention for `attnlab check --op batched_attention`, calling
NAME(Q, K, V, mask=None, scale=None, causal=False, alignment="top_left")
with 4-D NumPy float64 arrays (grader/PROTOCOL.md).

The op attention_backward is served as exercise B1 (exercises/B1/README.md,
its --entries and --ops from the registry), calling NAME(Q, K, V, dO,
mask=None, scale=None, causal=False) with 2-D NumPy float64 arrays and a
boolean mask (True = forbidden); the function returns the gradients
(dQ, dK, dV) of sum(dO * O), O = attention(Q, K, V, mask).

--entry NAME answers with the function NAME instead of the exercise's
names (`attnlab check --entry`). For the op attention the function may
return the pair (O, A) or O alone; with --entry the harness learns which by
calling it once on a 1 x 1 input before the hello, and says it there
("weights": false for O alone).

Loads SUBMISSION.py by path, finds its entry function and answers the
grader's requests, one JSON line in, one JSON line out. Before any code of
the submission runs, the protocol channel is moved to private descriptors:
the submission's stdin reads /dev/null and its stdout (fd 1, sys.stdout)
goes to stderr, so its prints can neither corrupt nor forge a reply.

Uses the standard library and NumPy only.
"""

import os
import sys


def _claim_protocol_channel():
    """Returns (reader, writer) on private copies of fds 0 and 1, then points
    fd 0 at /dev/null and fd 1 at stderr (also sys.stdin / sys.stdout)."""
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8", newline="\n")
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, "r")
    sys.stdout = sys.stderr
    return proto_in, proto_out


PROTO_IN, PROTO_OUT = _claim_protocol_channel()

import argparse  # noqa: E402  (after the channel is claimed, on purpose)
import difflib  # noqa: E402
import faulthandler  # noqa: E402
import importlib.machinery  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import traceback  # noqa: E402

PROTOCOL = "attnlab-protocol/1"
VERSION = 1

# The operations `attnlab check` takes that no exercise serves: their entry
# names and ops (an exercise's come on the command line).
OPERATION_ENTRY_POINTS = {
    # the op batched_attention (--entry names the kernel).
    "batched_attention": ["batched_attention", "grouped_query_attention"],
}

# False when the kernel returns O alone (learned by probe_weights, --entry).
RETURNS_WEIGHTS = True

_FROM_STRING = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_ONLY_FLOATS = frozenset([float])


class Fault(Exception):
    """The submission's answer cannot be used (not a pair, not numeric...)."""


class BadRequest(Exception):
    """The grader's request does not follow the protocol."""


def send(obj):
    PROTO_OUT.write(json.dumps(obj, allow_nan=False, separators=(",", ":")))
    PROTO_OUT.write("\n")
    PROTO_OUT.flush()


def encode_number(x):
    if math.isfinite(x):
        return x  # json writes repr(x): the shortest text that reads back to x
    if math.isnan(x):
        return "NaN"
    return "Infinity" if x > 0 else "-Infinity"


def encode_matrix(a):
    """2-D float64 array -> list of rows; non-finite entries as strings."""
    import numpy as np

    if np.isfinite(a).all():
        return a.tolist()
    return [[encode_number(x) for x in row] for row in a.tolist()]


def decode_number(x, name):
    if isinstance(x, bool) or not isinstance(x, (int, float, str)):
        raise BadRequest("%s holds %r, expected a number" % (name, x))
    if isinstance(x, str):
        if x not in _FROM_STRING:
            raise BadRequest("%s holds the string %r" % (name, x))
        return _FROM_STRING[x]
    return float(x)


def shape_of(req, name, rows):
    shapes = req.get("shapes") or {}
    if name in shapes:
        return tuple(int(n) for n in shapes[name])
    return (len(rows), len(rows[0]) if rows else 0)


def decode_matrix(req, name, rows=None, shown=None):
    """The request's matrix `name` as a fresh, writable float64 array. For a
    list of matrices (the heads' W_Q, W_K, W_V), `rows` is one element of the
    list and `shown` its name in messages; `shapes` gives the common shape."""
    import numpy as np

    if rows is None:
        rows = req.get(name)
    shape = shape_of(req, name, rows if isinstance(rows, list) else [])
    name = shown or name
    if not isinstance(rows, list):
        raise BadRequest("%s is missing or not a list of rows" % name)
    if rows and all(type(row) is list and len(row) == shape[1]
                    and _ONLY_FLOATS.issuperset(map(type, row)) for row in rows):
        # Every entry a float (the common request): NumPy copies them as they
        # are, the same doubles as the loop below, without a Python step per
        # entry (most of the harness's time on long rows).
        return np.array(rows, dtype=np.float64).reshape(shape)
    flat = []
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != shape[1]:
            raise BadRequest("%s row %d does not have %d entries" % (name, i, shape[1]))
        for j, x in enumerate(row):
            flat.append(x if type(x) is float else decode_number(x, "%s[%d][%d]" % (name, i, j)))
    return np.array(flat, dtype=np.float64).reshape(shape)


def decode_mask(req):
    """The request's mask as a bool array (True = forbidden), or None."""
    import numpy as np

    rows = req.get("mask")
    if rows is None:
        return None
    if not isinstance(rows, list):
        raise BadRequest("mask is not a list of rows")
    shape = shape_of(req, "mask", rows)
    flat = []
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != shape[1]:
            raise BadRequest("mask row %d does not have %d entries" % (i, shape[1]))
        for j, x in enumerate(row):
            if not isinstance(x, bool):
                raise BadRequest("mask[%d][%d] is %r, expected true or false" % (i, j, x))
            flat.append(x)
    return np.array(flat, dtype=bool).reshape(shape)


# An answer whose shape holds more entries than this many times those the
# case asks for (and more than ANSWER_ENTRIES_FLOOR) is refused by its shape
# alone, before it is read: a broadcast view (np.broadcast_to(x, (10**6,
# 10**6))) costs nothing until it is read, then terabytes. Smaller wrong
# shapes go to the grader, whose reply-size cap and shape check say more.
ANSWER_ENTRIES_FACTOR = 16
ANSWER_ENTRIES_FLOOR = 1 << 22

# The number formats an answer may hold besides numpy's real floating kinds
# (kind "f"): the names of the grader's one number-format table
# (reference/src/number_format.cpp), given by the grader as --real-types
# (bfloat16 from ml_dtypes or a similar extension, which numpy reports as
# kind "V", is accepted by its name). Any other kind is a wrong-type fault.
REAL_TYPE_NAMES = ()


def _real_types():
    """The accepted formats, as a fault message lists them."""
    names = list(REAL_TYPE_NAMES)
    if len(names) < 2:
        return "".join(names) or "numpy's floating types"
    return ", ".join(names[:-1]) + " or " + names[-1]


_KINDS = {"c": "complex numbers", "U": "strings", "S": "bytes", "O": "Python objects",
          "b": "booleans", "i": "integers", "u": "unsigned integers", "M": "dates",
          "m": "time spans", "V": "raw records"}


def _entries(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _declared_shape(value):
    """An array's or a tensor's shape, read without converting it; None
    for a value without one (a list)."""
    try:
        return tuple(int(d) for d in value.shape)
    except Exception:  # noqa: BLE001  (no shape, or not one of integers)
        return None


def _check_entries(shape, name, expected):
    """A Fault when `shape` holds far more entries than `expected` (a shape)."""
    if expected is None or shape is None:
        return
    want = _entries(expected)
    if _entries(shape) > max(ANSWER_ENTRIES_FACTOR * want, ANSWER_ENTRIES_FLOOR):
        raise Fault("%s has shape %s (%d entries), expected %s (%d entries): refused by its "
                    "shape before reading it" % (name, tuple(shape), _entries(shape),
                                                 tuple(expected), want))


def as_array(value, name, ndim, expected=None, what="a 2-D matrix"):
    """The submission's output `name` as a fresh float64 array of `ndim`
    dimensions (None: any), or a Fault: its shape is checked against `expected` (the
    shape the case asks for) before anything is read, and it must hold real
    floating-point numbers (REAL_TYPE_NAMES), never complex numbers, strings,
    objects, booleans or integers."""
    import numpy as np

    _check_entries(_declared_shape(value), name, expected)
    try:
        a = np.asarray(value)  # its own dtype: an array is not copied here
    except Exception as e:  # noqa: BLE001  (any conversion error is the answer's fault)
        raise Fault("%s cannot be read as an array of numbers: %s: %s" % (name, type(e).__name__, e))
    _check_entries(a.shape, name, expected)
    if a.dtype.kind != "f" and a.dtype.name not in REAL_TYPE_NAMES:
        kind = _KINDS.get(a.dtype.kind, "values")
        raise Fault("%s holds %s (dtype %s), expected real floating-point numbers (%s)"
                    % (name, kind, a.dtype, _real_types()))
    if ndim is not None and a.ndim != ndim:
        raise Fault("%s has shape %s, expected %s" % (name, a.shape, what))
    try:
        return a.astype(np.float64)
    except Exception as e:  # noqa: BLE001
        raise Fault("%s cannot be read as float64 numbers: %s: %s" % (name, type(e).__name__, e))


def as_matrix(value, name, expected=None):
    """The submission's output `name` as a 2-D float64 array, or a Fault (as_array)."""
    return as_array(value, name, 2, expected)


def _snapshot(value):
    """What an input is, to the bit: shape, type and bytes of an array; the
    same for each element of a list (the heads' W_Q, W_K, W_V)."""
    if isinstance(value, list):
        return ("list", len(value), tuple(_snapshot(v) for v in value))
    return (value.shape, value.dtype.str, value.tobytes())


def call_kernel(fn, inputs, *args, **kwargs):
    """(answer, None) for fn(*args, **kwargs), or (None, the refusal reply)
    when it raises. `inputs` names the arrays passed ({"Q": Q, ...}); a Fault
    when the call changed any of them in place (kept to the bit and compared
    after the call, as the caller's arrays must stay as given). The C++
    harness's KeptInputs (cpp_harness.hpp) holds C++ kernels to the same
    rule with the same words, up to the advice."""
    saved = {n: _snapshot(v) for n, v in inputs.items() if v is not None}

    def check():
        for n, before in saved.items():
            if _snapshot(inputs[n]) != before:
                raise Fault("the function modified its input %s in place; the caller's %s must "
                            "stay as it was given (work on a copy: %s = %s.copy())" % (n, n, n, n))

    try:
        result = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001  (a refusal, reported with its type)
        check()
        return None, refusal(e)
    check()
    return result, None


def refusal(e):
    """The reply for an exception the submission raised."""
    return {"ok": False, "error": {"type": type(e).__name__, "message": str(e)}}


def answer_attention(fn, req):
    Q = decode_matrix(req, "Q")
    K = decode_matrix(req, "K")
    V = decode_matrix(req, "V")
    mask = decode_mask(req)
    result, refused = call_kernel(fn, {"Q": Q, "K": K, "V": V, "mask": mask}, Q, K, V, mask)
    if refused:
        return refused
    o_shape, a_shape = (Q.shape[0], V.shape[1]), (Q.shape[0], K.shape[0])
    if not RETURNS_WEIGHTS:  # a kernel that returns O only (hello "weights": false)
        if isinstance(result, (tuple, list)) and len(result) == 2:
            raise Fault("the function returned a pair, but returned O alone for the 1 x 1 probe")
        return {"ok": True, "O": encode_matrix(as_matrix(result, "O", o_shape))}
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise Fault("the function returned %s, expected the pair (O, A)" % type(result).__name__)
    O = as_matrix(result[0], "O", o_shape)
    A = as_matrix(result[1], "A", a_shape)
    return {"ok": True, "O": encode_matrix(O), "A": encode_matrix(A)}


def answer_softmax(fn, req, with_mask):
    """softmax_rows(S) (F1) or masked_softmax(S, mask) (F2; mask None if absent)."""
    S = decode_matrix(req, "S")
    args = (S, decode_mask(req)) if with_mask else (S,)
    result, refused = call_kernel(fn, {"S": S, "mask": args[1] if with_mask else None}, *args)
    if refused:
        return refused
    if isinstance(result, tuple):
        raise Fault("the function returned a tuple, expected the weight matrix A")
    return {"ok": True, "A": encode_matrix(as_matrix(result, "A", S.shape))}


def decode_tile(req, name):
    t = req.get(name)
    if isinstance(t, bool) or not isinstance(t, int):
        raise BadRequest("%s is %r, expected an integer" % (name, t))
    return t


def answer_tiled(fn, req):
    """attention_tiled(Q, K, V, mask, tile_q, tile_k) -> (O, logsumexp) (T1)."""
    Q = decode_matrix(req, "Q")
    K = decode_matrix(req, "K")
    V = decode_matrix(req, "V")
    mask = decode_mask(req)
    tile_q = decode_tile(req, "tile_q")
    tile_k = decode_tile(req, "tile_k")
    result, refused = call_kernel(fn, {"Q": Q, "K": K, "V": V, "mask": mask},
                                  Q, K, V, mask, tile_q, tile_k)
    if refused:
        return refused
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise Fault("the function returned %s, expected the pair (O, logsumexp)"
                    % type(result).__name__)
    O = as_matrix(result[0], "O", (Q.shape[0], V.shape[1]))
    lse = as_array(result[1], "logsumexp", None, (Q.shape[0],))
    if lse.ndim == 2 and 1 in lse.shape:
        lse = lse.reshape(-1)
    if lse.ndim != 1:
        raise Fault("logsumexp has shape %s, expected a vector of T_q numbers" % (lse.shape,))
    return {"ok": True, "O": encode_matrix(O), "logsumexp": [encode_number(x) for x in lse.tolist()]}


def answer_multi_head(fn, req):
    """multi_head_attention(X, W_Q, W_K, W_V, W_O, mask) -> O (M1); W_Q, W_K
    and W_V are lists with one matrix per head."""
    X = decode_matrix(req, "X")
    W_O = decode_matrix(req, "W_O")
    heads = {}
    for name in ("W_Q", "W_K", "W_V"):
        items = req.get(name)
        if not isinstance(items, list):
            raise BadRequest("%s is missing or not a list of matrices" % name)
        heads[name] = [decode_matrix(req, name, rows, "%s[%d]" % (name, i))
                       for i, rows in enumerate(items)]
    mask = decode_mask(req)
    inputs = dict(heads, X=X, W_O=W_O, mask=mask)
    result, refused = call_kernel(fn, inputs, X, heads["W_Q"], heads["W_K"], heads["W_V"], W_O, mask)
    if refused:
        return refused
    if isinstance(result, tuple):
        raise Fault("the function returned a tuple, expected the output matrix O")
    return {"ok": True, "O": encode_matrix(as_matrix(result, "O", (X.shape[0], W_O.shape[1])))}


def decode_tensor(req, name, boolean=False):
    """The request's tensor `name` (nested arrays, its dimensions in
    `shapes`) as a fresh NumPy array: float64, or bool for a mask."""
    import numpy as np

    shape = (req.get("shapes") or {}).get(name)
    if not isinstance(shape, list) or not all(isinstance(n, int) and not isinstance(n, bool)
                                              for n in shape) or not shape:
        raise BadRequest("shapes.%s is %r, expected a list of dimensions" % (name, shape))
    flat = []

    def walk(v, depth, where):
        if not isinstance(v, list) or len(v) != shape[depth]:
            raise BadRequest("%s does not have %d entries" % (where, shape[depth]))
        last = depth + 1 == len(shape)
        for k, x in enumerate(v):
            at = "%s[%d]" % (where, k)
            if not last:
                walk(x, depth + 1, at)
            elif boolean:
                if not isinstance(x, bool):
                    raise BadRequest("%s is %r, expected true or false" % (at, x))
                flat.append(x)
            else:
                flat.append(x if type(x) is float else decode_number(x, at))

    walk(req.get(name), 0, name)
    return np.array(flat, dtype=bool if boolean else np.float64).reshape(shape)


def encode_tensor(a):
    """An array of any rank -> nested lists; non-finite entries as strings."""
    import numpy as np

    if np.isfinite(a).all():
        return a.tolist()

    def nest(v):
        return [nest(x) for x in v] if isinstance(v, list) else encode_number(v)

    return nest(a.tolist())


def answer_batched(fn, req):
    """NAME(Q, K, V, mask=None, scale=None, causal=False, alignment="top_left")
    -> O (N, H, T_q, d_v): batched multi-head attention with grouped-query
    sharing (Q (N, H, T_q, d_k), K (N, H_kv, T_v, d_k), V (N, H_kv, T_v, d_v))."""
    import numpy as np

    Q = decode_tensor(req, "Q")
    K = decode_tensor(req, "K")
    V = decode_tensor(req, "V")
    mask = None if req.get("mask") is None else decode_tensor(req, "mask", boolean=True)
    scale = req.get("scale")
    if scale is not None:
        scale = decode_number(scale, "scale")
    causal = req.get("causal")
    if not isinstance(causal, bool):
        raise BadRequest("causal is %r, expected true or false" % (causal,))
    alignment = req.get("alignment")
    if alignment not in ("top_left", "bottom_right"):
        raise BadRequest("alignment is %r" % (alignment,))
    result, refused = call_kernel(fn, {"Q": Q, "K": K, "V": V, "mask": mask}, Q, K, V, mask=mask,
                                  scale=scale, causal=causal, alignment=alignment)
    if refused:
        return refused
    if isinstance(result, tuple):
        raise Fault("the function returned a tuple, expected the output tensor O")
    expected = Q.shape[:3] + V.shape[3:]
    O = as_array(result, "O", 4, expected, "4 dimensions (N, H, T_q, d_v)")
    return {"ok": True, "O": encode_tensor(O)}


def answer_backward(fn, req):
    """NAME(Q, K, V, dO, mask=None, scale=None, causal=False) -> (dQ, dK, dV):
    the gradients of sum(dO * O) with O = attention(Q, K, V, mask), dQ
    T_q x d_k, dK T_v x d_k, dV T_v x d_v."""
    Q = decode_matrix(req, "Q")
    K = decode_matrix(req, "K")
    V = decode_matrix(req, "V")
    dO = decode_matrix(req, "dO")
    mask = decode_mask(req)
    result, refused = call_kernel(fn, {"Q": Q, "K": K, "V": V, "dO": dO, "mask": mask},
                                  Q, K, V, dO, mask=mask, scale=None, causal=False)
    if refused:
        return refused
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        what = ("a %s of %d value%s" % (type(result).__name__, len(result), "" if len(result) == 1 else "s")
                if isinstance(result, (tuple, list)) else type(result).__name__)
        raise Fault("the function returned %s, expected the triple (dQ, dK, dV)" % what)
    dQ = as_matrix(result[0], "dQ", Q.shape)
    dK = as_matrix(result[1], "dK", K.shape)
    dV = as_matrix(result[2], "dV", V.shape)
    return {"ok": True, "dQ": encode_matrix(dQ), "dK": encode_matrix(dK), "dV": encode_matrix(dV)}


def decode_size(req, name):
    n = req.get(name)
    if isinstance(n, bool) or not isinstance(n, int):
        raise BadRequest("%s is %r, expected an integer" % (name, n))
    return n


def answer_mask(fn, req, causal):
    """causal_mask(T_q, T_v, alignment) or padding_mask(T_q, T_v, key_length)
    -> a T_q x T_v boolean matrix, True = forbidden (C1)."""
    import numpy as np

    T_q, T_v = decode_size(req, "T_q"), decode_size(req, "T_v")
    if causal:
        third = req.get("alignment")
        if third not in ("top_left", "bottom_right"):
            raise BadRequest("alignment is %r" % (third,))
    else:
        third = decode_size(req, "key_length")
    try:
        result = fn(T_q, T_v, third)
    except Exception as e:  # noqa: BLE001  (a refusal, reported with its type)
        return refusal(e)
    _check_entries(_declared_shape(result), "the mask", (T_q, T_v))
    try:
        M = np.asarray(result)
    except Exception as e:  # noqa: BLE001
        raise Fault("the mask cannot be read as an array: %s: %s" % (type(e).__name__, e))
    if M.ndim != 2:
        raise Fault("the mask has shape %s, expected a 2-D matrix" % (M.shape,))
    if M.dtype != np.bool_:
        raise Fault("the mask holds %s values, expected booleans (True = forbidden); an "
                    "additive mask of 0 and -inf, or 0/1 numbers, is not a boolean mask"
                    % M.dtype)
    return {"ok": True, "mask": M.tolist()}


def answer(fn, req, companion=None):
    op = req.get("op")
    if op in ("causal_mask", "padding_mask"):
        return answer_mask(fn if op == "causal_mask" else companion, req, op == "causal_mask")
    if op == "multi_head_attention":
        return answer_multi_head(fn, req)
    if op == "batched_attention":
        return answer_batched(fn, req)
    if op == "attention_backward":
        return answer_backward(fn, req)
    if op == "attention_tiled":
        return answer_tiled(fn, req)
    if op == "attention":
        return answer_attention(companion if companion is not None else fn, req)
    if op == "softmax_rows":
        return answer_softmax(fn, req, with_mask=False)
    return answer_softmax(fn, req, with_mask=True)


def probe_weights(fn):
    """True if the attention kernel fn returns a pair (O, A), False if it
    returns O alone: one call on Q = K = [[0]], V = [[1]], no mask. A kernel
    that raises here is taken to return the pair (its answers then say)."""
    import numpy as np

    try:
        result = fn(np.zeros((1, 1)), np.zeros((1, 1)), np.ones((1, 1)), None)
    except Exception:  # noqa: BLE001  (the cases will show the error)
        traceback.print_exc(file=sys.stderr)
        return True
    return isinstance(result, (tuple, list)) and len(result) == 2


def missing_entry(module, names, by_entry):
    """The AttributeError for a file that defines none of `names`: it lists
    the file's own top-level functions and says how to call one of them
    (attnlab check --entry NAME; for a mistyped --entry, the closest name).
    Marked attnlab_entry: no traceback (the harness's own lines say nothing)."""
    own = sorted(
        n for n, v in vars(module).items()
        if callable(v) and getattr(v, "__module__", None) == module.__name__ and not n.startswith("_")
    )
    listed = ", ".join(n + "()" for n in own)
    if by_entry:
        text = "the submission defines no function %s() (--entry %s)" % (names[0], names[0])
        near = difflib.get_close_matches(names[0], own, n=1)
        text += (": did you mean --entry %s?" % near[0]) if near else "."
        text += " Its top-level functions: %s" % (listed or "none")
    else:
        text = "the submission defines none of %s" % ", ".join(n + "()" for n in names)
        if own:
            text += ("; its top-level functions are %s: name yours %s(), or with attnlab check "
                     "pass --entry NAME (e.g. --entry %s)" % (listed, names[0], own[0]))
        else:
            text += "; it defines no top-level function"
    error = AttributeError(text)
    error.attnlab_entry = True
    return error


def load_submission(path, entries, companions, entry=None):
    """Imports the file; returns (function, its name(s), the companion
    function (one of `companions`) or None). Raises on failure."""
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    # An explicit source loader: the file may be named SOL.PY (or anything),
    # which spec_from_file_location alone does not take for Python.
    loader = importlib.machinery.SourceFileLoader("submission", path)
    spec = importlib.util.spec_from_file_location("submission", path, loader=loader)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load %s as a Python module" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["submission"] = module
    spec.loader.exec_module(module)
    def find(names, by_entry=False):
        for name in names:
            fn = getattr(module, name, None)
            if callable(fn):
                return fn, name
        raise missing_entry(module, names, by_entry)

    fn, name = find([entry] if entry else entries, by_entry=bool(entry))
    companion = None
    if companions:
        companion, companion_name = find(companions)
        name += ", " + companion_name
    return fn, name, companion


def main():
    parser = argparse.ArgumentParser(description="attnlab harness for Python submissions")
    parser.add_argument("--exercise", required=True)
    parser.add_argument("--entries", default=None,
                        help="the exercise's function names, in order of preference")
    parser.add_argument("--companions", default="",
                        help="the names of the second function the exercise needs")
    parser.add_argument("--ops", default=None, help="the protocol ops the exercise answers")
    parser.add_argument("--entry", default=None,
                        help="the function to call (attnlab check --entry)")
    parser.add_argument("--real-types", required=True,
                        help="the number formats an answer may hold (the grader's table)")
    parser.add_argument("submission")
    args = parser.parse_args()
    global REAL_TYPE_NAMES
    REAL_TYPE_NAMES = tuple(n for n in args.real_types.split(",") if n)
    if args.entries is not None and args.ops is not None:
        entries, ops = args.entries.split(","), args.ops.split(",")
    elif args.exercise in OPERATION_ENTRY_POINTS:
        entries, ops = OPERATION_ENTRY_POINTS[args.exercise], [args.exercise]
    else:
        parser.error("--exercise %s needs --entries and --ops" % args.exercise)
    companions = [c for c in args.companions.split(",") if c]
    faulthandler.enable(file=sys.stderr)

    hello = {"v": VERSION, "hello": PROTOCOL, "language": "python", "exercise": args.exercise}
    try:
        import numpy as np

        hello["runtime"] = "CPython %s, NumPy %s" % (platform.python_version(), np.__version__)
        fn, entry, companion = load_submission(args.submission, entries, companions, args.entry)
        # A kernel of the op attention itself (not a tiled one, whose op
        # "attention" is its companion's) may return O alone.
        if args.entry and ops[0] == "attention":
            global RETURNS_WEIGHTS
            RETURNS_WEIGHTS = probe_weights(fn)
            hello["weights"] = RETURNS_WEIGHTS
    except Exception as e:  # noqa: BLE001  (SyntaxError, ImportError...: not gradable)
        if not getattr(e, "attnlab_entry", False):
            traceback.print_exc(file=sys.stderr)
        error = {"type": type(e).__name__, "message": str(e)}
        if getattr(e, "attnlab_entry", False):
            error["missing_entry"] = True  # grader/PROTOCOL.md: the hello's "error"
        hello.update(ok=False, error=error)
        send(hello)
        return 1
    hello.update(ok=True, entry=entry, ops=ops)
    send(hello)

    for line in PROTO_IN:
        if not line.strip():
            continue
        rid = None
        try:
            req = json.loads(line)
            rid = req.get("id") if isinstance(req, dict) else None
            if not isinstance(req, dict) or req.get("v") != VERSION:
                raise BadRequest("not a version %d request" % VERSION)
            if req.get("op") not in ops:
                raise BadRequest("unsupported op %r" % req.get("op"))
            reply = answer(fn, req, companion)
        except (BadRequest, ValueError) as e:
            reply = {"ok": False, "fault": "harness: bad request: %s" % e}
        except Fault as e:
            reply = {"ok": False, "fault": str(e)}
        reply.update(v=VERSION, id=rid)
        send(reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
