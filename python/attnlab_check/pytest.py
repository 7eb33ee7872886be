"""One pytest test per property of ``attnlab check``.

    # test_my_kernel.py
    from attnlab_check.pytest import attnlab_properties
    from my_kernels import my_attention

    test_my_attention = attnlab_properties(my_attention, fully_forbidden="nan")

pytest then collects ``test_my_attention[oracle_agreement]``,
``test_my_attention[row_stochastic]``, ... : one test for each property
``attnlab check`` runs for the operation (``attnlab check
--list-properties``, asked at collection; nothing runs the kernel then).
The first of them to run checks the kernel once, with ``--results-json``;
each test then reports its own property from those results:

- passed: the test passes;
- skipped (the property does not apply, e.g. A for a kernel returning O
  only): ``pytest.skip`` with the reason;
- failed: the test fails with the property's name, its one-line summary,
  and the counterexample as attnlab prints it (the shrunk inputs, the
  answer, the worst entry against its bound, the seed that replays it, the
  diagnosis);
- not run (``time_budget`` ran out first): the test fails, saying so.

A kernel that does not load fails every test with attnlab's report; a
usage error (a function the file does not define...) raises
:class:`attnlab_check.AttnlabError` in every test.
"""

import pytest

from . import AttnlabError, list_properties, run

__all__ = ["attnlab_properties"]


def _failure_message(prop):
    """What a failed test shows: the property, its summary, its verdict's text."""
    lines = ["%s failed: %s" % (prop["name"], prop.get("summary", ""))]
    if prop.get("ratio") is not None:
        lines.append("error/bound ratio: %s" % prop["ratio"])
    lines.append("seed: %s" % prop.get("seed"))
    lines.append(prop.get("text", "").rstrip())
    return "\n".join(lines)


def _report_property(result, name):
    """Passes, skips or fails the running test for property `name` of `result`."""
    results = result.results
    if result.returncode == 2 or results is None:
        raise AttnlabError("attnlab check could not run (exit status %d): %s"
                           % (result.returncode, " ".join(result.command)), result.report)
    if results.get("status") == "not_gradable":
        pytest.fail("%s: the kernel was not checked:\n%s" % (name, result.report), pytrace=False)
    prop = result.property(name)
    if prop is None:
        pytest.fail("%s: attnlab reported no verdict for it:\n%s" % (name, result.report),
                    pytrace=False)
    status = prop["status"]
    if status == "passed":
        return
    if status == "skipped":
        pytest.skip("%s: %s" % (name, prop.get("summary", "")))
    if status == "not_run":
        pytest.fail("%s was not run: %s" % (name, prop.get("summary", "")), pytrace=False)
    pytest.fail(_failure_message(prop), pytrace=False)


def attnlab_properties(fn, **options):
    """A pytest test function parametrised with one test per property that
    ``attnlab check`` runs on `fn` (its parameter: ``attnlab_property``, the
    property's id). Assign it to a module-level name starting with
    ``test_``. `options` are those of :func:`attnlab_check.check` (op,
    fully_forbidden, precision, cases, seed, time_budget, ...); with
    ``prop`` only that property is collected. The kernel is checked once,
    when the first of the tests runs. Raises AttnlabError at collection when
    the properties cannot be listed (no attnlab binary, a bad op)."""
    if options.get("prop"):
        names = [options["prop"]]
    else:
        names = list_properties(fn, op=options.get("op", "attention"),
                                fully_forbidden=options.get("fully_forbidden", "error"),
                                binary=options.get("binary"))
    checked = []

    @pytest.mark.parametrize("attnlab_property", names)
    def test_properties(attnlab_property):
        if not checked:
            checked.append(run(fn, **options))
        _report_property(checked[0], attnlab_property)

    test_properties.__name__ = "test_" + getattr(fn, "__name__", "kernel")
    return test_properties
