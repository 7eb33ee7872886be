#!/usr/bin/env python3
"""Runs `attnlab check` on every kernel of a zoo folder and says how each
run ended, with its margin to the error bound (reference/TOLERANCE.md).

Usage: zoo_run.py ATTNLAB ZOO_DIR [--seeds 1,2,3,4,5] [--cases N] [--jobs 2]
                  [--max-ratio 0.5] [--min-ratio 10] [--expected-only]

Every .py and .cpp file of ZOO_DIR names its entries and their declared
precision in header lines (grader/tests/data/zoo/README.md):

    # zoo-entries: attention:float64 attention_f16:float16/float32
    # expect-fail: oracle_agreement        (a planted bug: buggy/)

`TYPE/ACC` is --precision TYPE --accumulate ACC; a C++ file's entry is f3
(the F3 interface, no --entry). Each entry is checked as the op attention
at each seed; one line per run:

    member  entry  precision  seed  verdict  failing-properties  ratio  time  where

`ratio` is, for a passing run, the largest error/bound over the passing
comparisons with the oracle (check's "largest error/bound over passing
comparisons" line); for a failing run, the worst entry's error/bound of the
expected property (else of the first failing one) from check's
"worst entry: ... (Nx)" line, "inf" for a NaN, Inf or an exact comparison
missed, "-" when the failure has no worst entry (a refusal missed).

Exit status: 1 when a requirement fails, 0 otherwise, 2 for bad usage.
Requirements: a file without `expect-fail` must pass every run with a
ratio <= --max-ratio; a file with `expect-fail: P` must fail P in every run,
with a ratio >= --min-ratio (a loud failure; "inf" and "-" count as loud).
A correct member that is correct only in a stated range (its docstring says
which and why) names the properties an entry may fail outside it:

    # zoo-may-fail: attention:row_stochastic,oracle_agreement

and such a run passes the requirement when it fails those alone.

--expected-only checks a file with `expect-fail: P` on P alone (check
--property P): its requirement is about P only, and P's cases are the same
whichever other properties run; the `failing` column then shows P alone.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time

FAIL_LINE = re.compile(r"^FAIL  (\w+)")
PASS_LINE = re.compile(r"^(PASS|SKIP)  (\w+)")
WORST_RATIO = re.compile(r"^\s+worst entry: .*\(([0-9.eE+-]+|inf)x\)\s*$")
WORST_UNBOUNDED = re.compile(r"^\s+worst entry: .*(the answer is NaN|not finite|> bound|error )")
MARGIN = re.compile(r"^largest error/bound over passing comparisons: (\S+) \((.*)\)$")


def read_header(path):
    """(entries [(entry, precision, accumulate or None)], expected failing property or None,
    {entry: properties it may fail})."""
    entries, expect, may_fail = [], None, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            body = line.strip().lstrip("#/").strip()
            if body.startswith("zoo-entries:"):
                for token in body.split()[1:]:
                    entry, _, precision = token.partition(":")
                    storage, _, accumulate = precision.partition("/")
                    entries.append((entry, storage, accumulate or None))
            elif body.startswith("expect-fail:"):
                expect = body.split()[1]
            elif body.startswith("zoo-may-fail:"):
                for token in body.split()[1:]:
                    entry, _, props = token.partition(":")
                    may_fail[entry] = set(props.split(","))
    return entries, expect, may_fail


def parse_report(text, expect):
    """(verdict, failing properties, ratio text, where) from check's output."""
    failing, ratios, current = [], {}, None
    margin, where = None, ""
    for line in text.splitlines():
        if m := FAIL_LINE.match(line):
            current = m.group(1)
            failing.append(current)
            ratios[current] = "-"
        elif PASS_LINE.match(line):
            current = None
        elif current and (m := WORST_RATIO.match(line)):
            ratios[current] = m.group(1)
        elif current and ratios[current] == "-" and WORST_UNBOUNDED.match(line):
            ratios[current] = "inf"
        elif m := MARGIN.match(line):
            margin, where = m.group(1), m.group(2)
    if not failing and not re.search(r"^\d+ passed, 0 failed", text, re.M):
        return "error", [], "-", text.strip().splitlines()[-1] if text.strip() else "no output"
    if failing:
        key = expect if expect in failing else failing[0]
        return "fail", failing, ratios[key], ""
    return "pass", [], margin or "-", where


def run_one(attnlab, path, entry, storage, accumulate, seed, cases, only):
    """check's output, and its wall time in seconds."""
    start = time.monotonic()
    text = run_check(attnlab, path, entry, storage, accumulate, seed, cases, only)
    return text, time.monotonic() - start


def run_check(attnlab, path, entry, storage, accumulate, seed, cases, only):
    cmd = [attnlab, "check", path, "--op", "attention", "--precision", storage, "--seed", str(seed)]
    if accumulate:
        cmd += ["--accumulate", accumulate]
    if not path.endswith(".cpp"):
        cmd += ["--entry", entry]
    if cases:
        cmd += ["--cases", str(cases)]
    if only:
        cmd += ["--property", only]
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    return proc.stdout + proc.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("attnlab")
    ap.add_argument("zoo_dir")
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--cases", type=int, default=0, help="cases per property (default: check's)")
    ap.add_argument("--jobs", type=int, default=2, choices=(1, 2))
    ap.add_argument("--max-ratio", type=float, default=0.5,
                    help="largest error/bound allowed to a correct member's passing run")
    ap.add_argument("--min-ratio", type=float, default=0,
                    help="smallest error/bound of a planted bug's expected failure (a failure "
                         "of an exact rule counts as infinite)")
    ap.add_argument("--expected-only", action="store_true",
                    help="check a planted bug on its expected failing property alone")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",") if s]
    runs = []
    for name in sorted(os.listdir(args.zoo_dir)):
        if not name.endswith((".py", ".cpp")):
            continue
        path = os.path.join(args.zoo_dir, name)
        entries, expect, may_fail = read_header(path)
        if not entries:
            print("%s: no zoo-entries line" % name, file=sys.stderr)
            return 2
        runs += [(name, path, e, (expect, may_fail.get(e[0], set())), seed) for e in entries for seed in seeds]
    violations = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_one, args.attnlab, path, e[0], e[1], e[2], seed, args.cases,
                               expect if args.expected_only else None)
                   for (_, path, e, (expect, _), seed) in runs]
        print("%-28s %-22s %-16s %4s %-7s %-40s %-9s %6s %s" % (
            "member", "entry", "precision", "seed", "verdict", "failing", "ratio", "time", "where"))
        for (name, _, (entry, storage, acc), (expect, may_fail), seed), fut in zip(runs, futures):
            text, seconds = fut.result()
            verdict, failing, ratio, where = parse_report(text, expect)
            if expect:
                ok = expect in failing and (ratio in ("inf", "-") or float(ratio) >= args.min_ratio)
            elif failing and set(failing) <= may_fail:
                ok = True
            else:
                ok = verdict == "pass" and ratio != "-" and float(ratio) <= args.max_ratio
            violations += not ok
            print("%-28s %-22s %-16s %4d %-7s %-40s %-9s %5.1fs %s%s" % (
                name, entry, storage + ("/" + acc if acc else ""), seed, verdict,
                ",".join(failing) or "-", ratio, seconds, where, "" if ok else "  <-- NOT AS REQUIRED"),
                flush=True)
    print("%d runs, %d not as required" % (len(runs), violations))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
