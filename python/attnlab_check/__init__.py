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

The ``attnlab`` binary is found, in order: the ``binary`` argument, the
``ATTNLAB`` environment variable, ``attnlab`` on ``PATH``, then the
checkout's build folder (``build/grader/attnlab`` beside this package's
``python/`` folder).
"""

import inspect
import os
import shutil
import subprocess
import sys

__all__ = ["check", "find_attnlab", "CheckResult", "PropertyFailure", "AttnlabError"]

PRECISIONS = ("float64", "float32", "float16", "bfloat16")
OPERATIONS = ("attention", "masked_softmax", "softmax_rows", "attention_tiled",
              "multi_head_attention", "batched_attention")
FULLY_FORBIDDEN = ("error", "nan", "zeros")


class PropertyFailure(AssertionError):
    """A property failed (exit status 1). ``report`` is attnlab's text report:
    each failed property with its shrunk counterexample, worst entry, seed and
    diagnosis."""

    def __init__(self, report, result):
        super().__init__(report)
        self.report = report
        self.result = result


class AttnlabError(RuntimeError):
    """attnlab could not run the check (exit status 2: usage, no NumPy, no
    binary...). ``report`` holds what it printed."""

    def __init__(self, message, report=""):
        super().__init__(message if not report else message + "\n" + report)
        self.report = report


class CheckResult:
    """What a passing check printed: ``report`` (text), ``command`` (argv)."""

    def __init__(self, report, command, returncode):
        self.report = report
        self.command = command
        self.returncode = returncode

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
    """(file, function name) of a module-level Python function."""
    if isinstance(fn, (str, os.PathLike)):
        return os.fspath(fn), None
    name = getattr(fn, "__name__", None)
    try:
        source = inspect.getsourcefile(fn)
    except TypeError:
        source = None
    if not source or not name:
        raise AttnlabError("%r is not a function defined in a Python file" % (fn,))
    module = sys.modules.get(getattr(fn, "__module__", ""), None)
    if name == "<lambda>" or getattr(module, name, None) is not fn:
        raise AttnlabError(
            "%s must be defined at the top level of its file (attnlab imports %s and calls "
            "%s by name in a process of its own)" % (name, source, name))
    return source, name


def check(fn, precision="float64", op="attention", fully_forbidden="error", cases=None,
          seed=None, timeout=None, prop=None, accumulate=None, python=None, binary=None,
          junit=None, max_seq=None, head_dims=None, tile_multiple=None, extra_args=()):
    """Runs ``attnlab check`` on `fn` and returns a CheckResult when every
    property holds; raises PropertyFailure (an AssertionError) with the report
    when one fails, AttnlabError when the check cannot run.

    fn: a top-level function of a Python file (or a path to a .py/.cpp file
      or a protocol executable). Its file is imported again in attnlab's own
      process, so it must import without side effects that need the caller.
    precision, accumulate: the precision the kernel declares (float64,
      float32, float16, bfloat16); passed as --precision/--accumulate only
      when not the default float64 / None.
    op: the kernel's operation (attention, masked_softmax, ...).
    fully_forbidden: the kernel's documented answer for a query row whose
      every key is forbidden: "error", "nan" or "zeros".
    cases, seed, timeout, prop: attnlab's --cases, --seed, --timeout, --property.
    max_seq, head_dims, tile_multiple: the shapes the kernel takes (--max-seq,
      --head-dims, --tile-multiple): e.g. max_seq=4096, head_dims=(64, 128),
      tile_multiple=64 sends only such shapes; others are not sent, and the
      report says which shapes were covered.
    python: the interpreter that runs the kernel (default: this one,
      sys.executable, so the kernel sees the same packages as the test).
    """
    if precision not in PRECISIONS:
        raise AttnlabError("precision must be one of %s, not %r" % (", ".join(PRECISIONS), precision))
    if op not in OPERATIONS:
        raise AttnlabError("op must be one of %s, not %r" % (", ".join(OPERATIONS), op))
    if fully_forbidden not in FULLY_FORBIDDEN:
        raise AttnlabError("fully_forbidden must be one of %s, not %r"
                           % (", ".join(FULLY_FORBIDDEN), fully_forbidden))
    source, entry = _source_and_entry(fn)
    argv = [find_attnlab(binary), "check", source, "--op", op,
            "--fully-forbidden", fully_forbidden]
    if entry:
        argv += ["--entry", entry]
    if source.endswith(".py"):
        argv += ["--python", python or sys.executable]
    if precision != "float64":
        argv += ["--precision", precision]
    if accumulate:
        argv += ["--accumulate", accumulate]
    if head_dims is not None:
        if isinstance(head_dims, int):
            head_dims = (head_dims,)
        head_dims = ",".join(str(int(d)) for d in head_dims)
    for flag, value in (("--cases", cases), ("--seed", seed), ("--timeout", timeout),
                        ("--property", prop), ("--junit", junit), ("--max-seq", max_seq),
                        ("--head-dims", head_dims), ("--tile-multiple", tile_multiple)):
        if value is not None:
            argv += [flag, str(value)]
    argv += list(extra_args)
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=env)
    report = proc.stdout + (("\n" + proc.stderr) if proc.stderr.strip() else "")
    result = CheckResult(report, argv, proc.returncode)
    if proc.returncode == 0:
        return result
    if proc.returncode == 1:
        raise PropertyFailure(report, result)
    raise AttnlabError("attnlab check could not run (exit status %d): %s"
                       % (proc.returncode, " ".join(argv)), report)
