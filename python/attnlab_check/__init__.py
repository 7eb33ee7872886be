"""Check an attention kernel written in Python with ``attnlab check``.

    import attnlab_check

    def test_my_kernel():
        attnlab_check.check(my_attention, op="attention", fully_forbidden="nan")

``check`` runs ``attnlab check`` on the file that defines the callable
(``inspect.getsourcefile(fn)``, entry ``fn.__name__``), in a process of its
own under attnlab's harness (grader/PROTOCOL.md), and raises
:class:`PropertyFailure` (an ``AssertionError``) carrying the report when a
property fails. The kernel's calling conventions are in grader/PROTOCOL.md
and docs/MANUAL.md ("Checking your own kernel").

One pytest test per property: :mod:`attnlab_check.pytest`
(``attnlab_properties``).

A backward pass (``op="attention_backward"``): a function ``fn(Q, K, V, dO,
mask=None, scale=None, causal=False) -> (dQ, dK, dV)``; :func:`torch_backward`
makes one from a PyTorch forward (the forward and ``torch.autograd.grad`` in
one call).

The ``attnlab`` binary is found, in order: the ``binary`` argument, the
``ATTNLAB`` environment variable, ``attnlab`` on ``PATH``, then the
checkout's build folder (``build/grader/attnlab`` beside this package's
``python/`` folder).
"""

import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile

__all__ = ["check", "run", "list_properties", "find_attnlab", "torch_backward", "CheckResult",
           "PropertyFailure", "TimeBudgetExceeded", "AttnlabError"]

# The names of number formats, operations and fully-forbidden conventions are
# attnlab's (its number-format table, operation registry and options); the
# client passes them through and attnlab refuses an unknown one (exit status 2,
# raised as AttnlabError by check), so no list of them is kept here.


class PropertyFailure(AssertionError):
    """A property failed (exit status 1). ``report`` is attnlab's text report:
    each failed property with its shrunk counterexample, worst entry, seed and
    diagnosis."""

    def __init__(self, report, result):
        super().__init__(report)
        self.report = report
        self.result = result


class TimeBudgetExceeded(AssertionError):
    """No property failed, but the time budget ran out before every one ran
    (exit status 3). ``not_run`` lists their ids; ``report`` is the text report."""

    def __init__(self, report, result):
        super().__init__(report)
        self.report = report
        self.result = result
        self.not_run = list((result.results or {}).get("not_run", []))


class AttnlabError(RuntimeError):
    """attnlab could not run the check (exit status 2: usage, no NumPy, no
    binary...). ``report`` holds what it printed."""

    def __init__(self, message, report=""):
        super().__init__(message if not report else message + "\n" + report)
        self.report = report


class CheckResult:
    """What a check printed: ``report`` (text), ``command`` (argv),
    ``returncode`` (0 passed, 1 a property failed or the kernel did not
    load, 2 usage or infrastructure error, 3 the time budget ran out), and
    ``results``: the parsed ``--results-json`` (docs/MANUAL.md,
    "Machine-readable results"), or None when attnlab wrote none (a usage
    error found before the kernel was started)."""

    def __init__(self, report, command, returncode, results=None):
        self.report = report
        self.command = command
        self.returncode = returncode
        self.results = results

    def property(self, name):
        """The results' object for property `name` (a dict with status,
        summary, counterexample, worst, ratio, seed, text), or None."""
        for p in (self.results or {}).get("properties", []):
            if p.get("name") == name:
                return p
        return None

    def __repr__(self):
        return "CheckResult(returncode=%d)" % self.returncode


def find_attnlab(binary=None):
    """The attnlab executable: `binary`, $ATTNLAB, `attnlab` on PATH, or the
    checkout's build/grader/attnlab. Raises AttnlabError when none exists."""
    tried = []
    for candidate in (binary, os.environ.get("ATTNLAB"), shutil.which("attnlab")):
        if candidate:
            tried.append(candidate)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    checkout = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for build in ("build", os.environ.get("ATTNLAB_BUILD_DIR", "")):
        if not build:
            continue
        candidate = os.path.join(checkout, build, "grader", "attnlab")
        tried.append(candidate)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise AttnlabError("no attnlab binary found (tried: %s); set ATTNLAB=/path/to/attnlab"
                       % ", ".join(tried))


def _source_and_entry(fn):
    """(file, function name) of a module-level Python function. A wrapper
    (``__wrapped__``, as :func:`torch_backward` makes) is found in the file of
    the function it wraps, under the name its module binds it to."""
    if isinstance(fn, (str, os.PathLike)):
        return os.fspath(fn), None
    name = getattr(fn, "__name__", None)
    try:
        source = inspect.getsourcefile(inspect.unwrap(fn))
    except (TypeError, ValueError):
        source = None
    if not source or not name:
        raise AttnlabError("%r is not a function defined in a Python file" % (fn,))
    module = sys.modules.get(getattr(fn, "__module__", ""), None)
    if getattr(module, name, None) is not fn and hasattr(fn, "__wrapped__"):
        bound = [n for n, v in sorted(vars(module or object()).items()) if v is fn]
        name = bound[0] if bound else name
    if name == "<lambda>" or getattr(module, name, None) is not fn:
        raise AttnlabError(
            "%s must be defined at the top level of its file (attnlab imports %s and calls "
            "%s by name in a process of its own)" % (name, source, name))
    return source, name


def torch_backward(forward, dtype=None):
    """A backward kernel for ``check(..., op="attention_backward")`` made
    from a PyTorch forward, in one call: the returned function
    ``attention_backward(Q, K, V, dO, mask=None, scale=None, causal=False)``
    makes Q, K, V tensors of `dtype` (a ``torch.dtype`` or the name of one
    in ``torch``, e.g. ``torch.bfloat16`` or "bfloat16"; None, the default:
    ``torch.get_default_dtype()`` when the kernel is called, which is
    torch's float32 unless ``torch.set_default_dtype`` changed it) that
    require gradients, runs ``O = forward(Q, K, V,
    mask=mask, scale=scale, causal=causal)`` and returns
    ``torch.autograd.grad(O, (Q, K, V), dO, allow_unused=True)`` as float64
    NumPy arrays (dQ T_q x d_k, dK T_v x d_k, dV T_v x d_v; a 16-bit type
    widened exactly; zeros for an input the forward does not use, which the
    properties then judge).

    The mask reaches `forward` as a boolean tensor in attnlab's convention,
    True = forbidden, or None: ``torch.nn.functional.scaled_dot_product_attention``
    wants the opposite (True = may attend), so pass it ``~mask``. dO is given
    in O's dtype. Bind the result at the top level of the file that defines
    `forward` (attnlab imports that file in a process of its own and calls it
    by that name)::

        def sdpa(Q, K, V, mask=None, scale=None, causal=False):
            return F.scaled_dot_product_attention(
                Q, K, V, attn_mask=None if mask is None else ~mask, is_causal=causal)

        attention_backward = attnlab_check.torch_backward(sdpa)

    Needs PyTorch (imported when the kernel is first called).
    """
    def attention_backward(Q, K, V, dO, mask=None, scale=None, causal=False):
        import numpy as np
        import torch

        if dtype is None:
            kind = torch.get_default_dtype()
        elif isinstance(dtype, torch.dtype):
            kind = dtype
        else:
            kind = getattr(torch, dtype)
        q, k, v = (torch.tensor(np.asarray(x), dtype=kind, requires_grad=True) for x in (Q, K, V))
        m = None if mask is None else torch.tensor(np.asarray(mask), dtype=torch.bool)
        O = forward(q, k, v, mask=m, scale=scale, causal=causal)
        dO = torch.tensor(np.asarray(dO), dtype=O.dtype)
        # An input the forward left out of the graph gets a zero gradient
        # (allow_unused), so the properties judge that, not a refusal.
        grads = torch.autograd.grad(O, (q, k, v), grad_outputs=dO, allow_unused=True)
        return tuple((torch.zeros_like(x) if g is None else g).detach().to(torch.float64).numpy()
                     for g, x in zip(grads, (q, k, v)))

    attention_backward.__wrapped__ = forward
    attention_backward.__module__ = getattr(forward, "__module__", __name__)
    return attention_backward


def _argv(fn, precision=None, op="attention", fully_forbidden="error", cases=None,
          seed=None, timeout=None, prop=None, accumulate=None, python=None, binary=None,
          junit=None, max_seq=None, head_dims=None, tile_multiple=None, time_budget=None,
          results_json=None, extra_args=()):
    """The ``attnlab check`` command line for these arguments (check's)."""
    source, entry = _source_and_entry(fn)
    argv = [find_attnlab(binary), "check", source, "--op", op,
            "--fully-forbidden", fully_forbidden]
    if entry:
        argv += ["--entry", entry]
    if source.endswith(".py"):
        argv += ["--python", python or sys.executable]
    if precision is not None:
        argv += ["--precision", str(precision)]
    if accumulate is not None:
        argv += ["--accumulate", str(accumulate)]
    if head_dims is not None:
        if isinstance(head_dims, int):
            head_dims = (head_dims,)
        head_dims = ",".join(str(int(d)) for d in head_dims)
    for flag, value in (("--cases", cases), ("--seed", seed), ("--timeout", timeout),
                        ("--property", prop), ("--junit", junit), ("--max-seq", max_seq),
                        ("--head-dims", head_dims), ("--tile-multiple", tile_multiple),
                        ("--time-budget", time_budget), ("--results-json", results_json)):
        if value is not None:
            argv += [flag, str(value)]
    return argv + list(extra_args)


def _attnlab(argv):
    """Runs attnlab (no colour); returns (report: stdout and stderr, exit status)."""
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=env)
    return proc.stdout + (("\n" + proc.stderr) if proc.stderr.strip() else ""), proc.returncode


def list_properties(fn, op="attention", fully_forbidden="error", binary=None):
    """The ids of the properties ``check`` runs on `fn` for `op` and
    `fully_forbidden` (``attnlab check --list-properties``: nothing is run)."""
    argv = _argv(fn, op=op, fully_forbidden=fully_forbidden, binary=binary) + ["--list-properties"]
    report, code = _attnlab(argv)
    if code != 0:
        raise AttnlabError("attnlab check --list-properties failed (exit status %d): %s"
                           % (code, " ".join(argv)), report)
    return [line.strip() for line in report.splitlines() if line.strip()]


def run(fn, precision=None, op="attention", fully_forbidden="error", cases=None,
        seed=None, timeout=None, prop=None, accumulate=None, python=None, binary=None,
        junit=None, max_seq=None, head_dims=None, tile_multiple=None, time_budget=None,
        results_json=None, extra_args=()):
    """Runs ``attnlab check`` on `fn` (the arguments of :func:`check`) and
    returns the CheckResult whatever the outcome, its ``results`` parsed
    from ``--results-json`` (a temporary file unless `results_json` names
    one). Raises AttnlabError only when the command cannot be formed (no
    binary, no file for `fn`); an argument attnlab refuses (an unknown
    precision, operation or property) is its exit status 2 in the result."""
    options = dict(locals())
    del options["fn"]
    with tempfile.TemporaryDirectory(prefix="attnlab-check-") as folder:
        path = results_json or os.path.join(folder, "results.json")
        argv = _argv(fn, **dict(options, results_json=path))
        report, code = _attnlab(argv)
        results = None
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                results = json.load(f)
    return CheckResult(report, argv, code, results)


def check(fn, *args, **options):
    """Runs ``attnlab check`` on `fn` and returns a CheckResult when every
    property holds; raises PropertyFailure (an AssertionError) with the report
    when one fails (or the kernel did not load), TimeBudgetExceeded (an
    AssertionError) when none failed but `time_budget` ran out first,
    AttnlabError when the check cannot run (a usage error: an unknown
    property, a function the file does not define...).

    fn: a top-level function of a Python file (or a path to a .py/.cpp file
      or a protocol executable). Its file is imported again in attnlab's own
      process, so it must import without side effects that need the caller.
    precision, accumulate: the number format the kernel declares (attnlab
      check's --precision/--accumulate, e.g. "float32"); None: attnlab's
      default (the text's float64). A name attnlab does not know is a usage
      error (AttnlabError).
    op: the kernel's operation (attention, masked_softmax, ...; default attention).
    fully_forbidden: the kernel's documented answer for a query row whose
      every key is forbidden: "error" (the default), "nan" or "zeros".
    cases, seed, timeout, prop: attnlab's --cases, --seed, --timeout, --property.
    time_budget: seconds for the whole check (--time-budget); None: no limit.
    max_seq, head_dims, tile_multiple: the shapes the kernel takes (--max-seq,
      --head-dims, --tile-multiple): e.g. max_seq=4096, head_dims=(64, 128),
      tile_multiple=64 sends only such shapes; others are not sent, and the
      report says which shapes were covered.
    python: the interpreter that runs the kernel (default: this one,
      sys.executable, so the kernel sees the same packages as the test).
    binary, junit, results_json, extra_args: the attnlab binary, a JUnit
      file, a results file (docs/MANUAL.md, "Machine-readable results"),
      further arguments.
    """
    result = run(fn, *args, **options)
    if result.returncode == 0:
        return result
    if result.returncode == 1:
        raise PropertyFailure(result.report, result)
    if result.returncode == 3:
        raise TimeBudgetExceeded(result.report, result)
    raise AttnlabError("attnlab check could not run (exit status %d): %s"
                       % (result.returncode, " ".join(result.command)), result.report)


check.__signature__ = inspect.signature(run)  # the same arguments, for help() and IDEs
