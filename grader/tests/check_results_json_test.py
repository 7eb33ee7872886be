"""attnlab check's machine-readable results and exit statuses
(docs/MANUAL.md, "Machine-readable results" and "Exit status").

    check_results_json_test.py ATTNLAB SOURCE_ROOT CASE

CASE is one of:
  correct  a correct kernel: exit 0, every property passed or skipped, the
           same properties and statuses as the JUnit file and the text report
  wrong    a kernel without the 1/sqrt(d_k) scale: exit 1; the failed
           properties are those the text report says FAIL, each with its
           counterexample's shape, worst entry, error/bound ratio over 1
           where there is a bound, the seed asked for, and its diagnosis
           (wrong_scale or nothing named, nothing withdrawn)
  budget   a correct kernel taking 1 s per call under --time-budget 2: exit 3,
           the properties not run named in the report and the results, none failed
  backward a correct backward pass (--op attention_backward): exit 0, the
           margin of backward_oracle_agreement in the results (ratio in
           (0, 1)) and the text report's "largest error/bound" line
  entry    --entry naming a function the file does not define: exit 2, a
           "did you mean", and results with status usage_error
Exits 0 when every expectation holds, else 1 with what differed.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

SEED = 4242


def run(attnlab, args, folder):
    """Runs attnlab check with --results-json; returns (exit status, output, results or None)."""
    path = os.path.join(folder, "results.json")
    proc = subprocess.run([attnlab, "check"] + args + ["--results-json", path],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, env=dict(os.environ, NO_COLOR="1"))
    results = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            results = json.load(f)
    return proc.returncode, proc.stdout, results


def report_lines(output, word):
    """The property ids on the text report's lines starting with WORD ("PASS", "FAIL"...)."""
    return [m.group(1) for m in re.finditer(r"^%s  (\w+)" % word, output, re.M)]


def expect(condition, what, output):
    if not condition:
        print(output)
        print("check_results_json_test: " + what, file=sys.stderr)
        sys.exit(1)


def by_status(results, status):
    return [p["name"] for p in results["properties"] if p["status"] == status]


def case_correct(attnlab, src, folder):
    junit = os.path.join(folder, "check.xml")
    code, out, res = run(attnlab, [os.path.join(src, "solutions", "F3", "attention.py"),
                                   "--cases", "20", "--seed", str(SEED), "--junit", junit], folder)
    expect(code == 0, "exit status %d, not 0" % code, out)
    expect(res["format"] == "attnlab-check-results/1" and res["status"] == "passed"
           and res["exit_status"] == 0 and res["not_run"] == [], "the run's summary", out)
    cases = [tc.get("name") for tc in ET.parse(junit).getroot().iter("testcase")]
    names = [p["name"] for p in res["properties"]]
    expect(len(cases) == len(names) and all(n in c for n, c in zip(names, cases)),
           "properties %s, JUnit testcases %s" % (names, cases), out)
    expect(by_status(res, "passed") == report_lines(out, "PASS")
           and by_status(res, "skipped") == report_lines(out, "SKIP"), "statuses", out)
    expect(len(names) > 0 and all(p["seed"] == SEED for p in res["properties"]
                                  if p["status"] == "passed"), "seeds", out)
    expect(res["margin"] is not None and 0 < res["margin"]["ratio"] < 1, "margin", out)


def case_wrong(attnlab, src, folder):
    kernels = os.path.join(src, "python", "tests", "kernels.py")
    code, out, res = run(attnlab, [kernels, "--entry", "numpy_attention_no_scale",
                                   "--cases", "30", "--seed", str(SEED)], folder)
    expect(code == 1 and res["status"] == "failed" and res["exit_status"] == 1, "exit status", out)
    failed = by_status(res, "failed")
    expect(failed and failed == report_lines(out, "FAIL"),
           "failed %s, the report's FAIL lines %s" % (failed, report_lines(out, "FAIL")), out)
    bounded = 0
    for p in res["properties"]:
        if p["status"] != "failed":
            continue
        expect(p["seed"] == SEED and p["summary"] and p["text"].startswith("[FAIL] " + p["name"]),
               "%s: seed, summary, text" % p["name"], out)
        expect(p["counterexample"] and re.match(r"T_q=\d+, T_v=\d+", p["counterexample"]["shape"]),
               "%s: counterexample %r" % (p["name"], p["counterexample"]), out)
        # The diagnosis: its status, the names given and none withdrawn (the one mistake fits every failure).
        d = p["diagnosis"]
        expect(d and d["status"] and d["withdrawn"] == [] and
               (d["misconceptions"] in ([], ["wrong_scale"])),
               "%s: diagnosis %r" % (p["name"], d), out)
        if p["worst"] and p["worst"]["bound"] not in (0, None):
            bounded += 1
            expect(p["ratio"] > 1 and abs(p["ratio"] - p["worst"]["error"] / p["worst"]["bound"])
                   <= 1e-9 * p["ratio"], "%s: ratio %r" % (p["name"], p["ratio"]), out)
    expect("oracle_agreement" in failed and bounded > 0, "oracle_agreement's bound", out)


def case_backward(attnlab, src, folder):
    kernel = os.path.join(src, "exercises", "mutants", "backward", "correct_backward.py")
    code, out, res = run(attnlab, [kernel, "--op", "attention_backward", "--entry", "backward_float64",
                                   "--cases", "20", "--seed", str(SEED)], folder)
    expect(code == 0 and res["status"] == "passed", "exit status %d, not 0" % code, out)
    expect(res["margin"] is not None and 0 < res["margin"]["ratio"] < 1, "margin", out)
    expect(re.search(r"^largest error/bound over passing comparisons: ", out, re.M),
           "the text report's margin line", out)


def case_budget(attnlab, src, folder):
    slow = os.path.join(src, "grader", "tests", "data", "slow_kernel.py")
    started = time.monotonic()
    code, out, res = run(attnlab, [slow, "--entry", "slow_attention", "--time-budget", "2"], folder)
    seconds = time.monotonic() - started
    expect(code == 3 and res["status"] == "not_run" and res["exit_status"] == 3,
           "exit status %d, not 3" % code, out)
    not_run = by_status(res, "not_run")
    expect(not_run and res["not_run"] == not_run and report_lines(out, "NOT RUN") == not_run,
           "not run %s, listed %s" % (not_run, res["not_run"]), out)
    expect(not by_status(res, "failed") and not by_status(res, "error"), "a failure", out)
    expect(re.search(r"^not run because .*time budget of 2 s \(--time-budget\): %s$"
                     % " ".join(not_run), out, re.M), "the not-run line", out)
    expect(res["time_budget_seconds"] == 2, "time_budget_seconds", out)
    # Without the budget: 100 cases of each property at 1 s a call (half an hour).
    expect(seconds < 120, "took %.0f s" % seconds, out)


def case_entry(attnlab, src, folder):
    kernels = os.path.join(src, "python", "tests", "kernels.py")
    code, out, res = run(attnlab, [kernels, "--entry", "numpy_atention"], folder)
    expect(code == 2, "exit status %d, not 2" % code, out)
    expect("did you mean --entry numpy_attention" in out, "did you mean", out)
    expect(res["status"] == "usage_error" and res["exit_status"] == 2
           and res["properties"] == [], "results %r" % res, out)


def main():
    attnlab, src, case = sys.argv[1:4]
    with tempfile.TemporaryDirectory(prefix="attnlab-results-json-") as folder:
        globals()["case_" + case](attnlab, src, folder)
    print("check_results_json_test %s: ok" % case)


if __name__ == "__main__":
    main()
