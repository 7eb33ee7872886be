#!/usr/bin/env python3
"""Runs `attnlab check --op attention_backward` on the backward pass's
mutants (exercises/mutants/backward/) and on the correct backward beside
them, at several seeds, and says whether each run ended as required.

Usage: backward_mutants_run.py ATTNLAB DIR [--seeds 1,2,3,4,5] [--cases N]
                               [--jobs 2] [--min-ratio 10]

Every bw_*.py of DIR is a mutant (DIR/../README.md, "The backward pass"):
its header names the property that must catch it and the precision it
declares,

    # caught by: backward_ds_rows_sum_to_zero
    # precision: float64

and its entry is `attention_backward`. A mutant's run is as required when
that property fails at the seed with its worst entry at least --min-ratio
times its bound (check's "worst entry: ... (Nx)" line after shrinking; a
NaN, an infinite value or an exact rule missed counts as infinite). A
failure without a worst entry (a valid input refused) is not enough: the
mistake must be seen in the numbers. The correct file (correct_backward.py)
names its entries and precisions,

    # entries: backward_float64:float64 backward_float32:float32

and each must pass every property at every seed. One line per run:

    file  entry  precision  seed  verdict  failing-properties  ratio  time

Exit status: 1 when a run is not as required, 0 otherwise, 2 for bad usage.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zoo_run import parse_report  # noqa: E402  (check's report, read as for the zoo)


def read_header(path):
    """{field: value} of the leading '# field: value' lines."""
    fields = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            key, sep, value = line[1:].strip().partition(":")
            if sep:
                fields[key.strip()] = value.strip()
    return fields


def run_check(attnlab, path, entry, precision, seed, cases):
    cmd = [attnlab, "check", path, "--op", "attention_backward", "--entry", entry,
           "--precision", precision, "--seed", str(seed)]
    if cases:
        cmd += ["--cases", str(cases)]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                          env=dict(os.environ, NO_COLOR="1"))
    return proc.stdout + proc.stderr, time.monotonic() - start


def runs_of(directory):
    """[(file, path, entry, precision, expected failing property or None)]."""
    runs = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if not name.endswith(".py"):
            continue
        header = read_header(path)
        if name.startswith("bw_"):
            for field in ("mutant", "op", "precision", "caught by", "key"):
                if field not in header:
                    raise ValueError("%s: the header has no '%s:' line" % (name, field))
            if header["op"] != "attention_backward":
                raise ValueError("%s: op is %s, not attention_backward" % (name, header["op"]))
            runs.append((name, path, "attention_backward", header["precision"], header["caught by"]))
        elif "entries" in header:
            for token in header["entries"].split():
                entry, _, precision = token.partition(":")
                runs.append((name, path, entry, precision, None))
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("attnlab")
    ap.add_argument("dir")
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--cases", type=int, default=0, help="cases per property (default: check's)")
    ap.add_argument("--jobs", type=int, default=2, choices=(1, 2))
    ap.add_argument("--min-ratio", type=float, default=10,
                    help="smallest error/bound of a mutant's expected failure")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",") if s]
    try:
        runs = [r + (seed,) for r in runs_of(args.dir) for seed in seeds]
    except ValueError as e:
        print("backward_mutants_run: %s" % e, file=sys.stderr)
        return 2
    mutants = {r[0] for r in runs if r[4]}
    if len(mutants) < 10 or not any(r[4] is None for r in runs):
        print("backward_mutants_run: %s holds %d mutants and %s correct entry" % (
            args.dir, len(mutants), "a" if any(r[4] is None for r in runs) else "no"), file=sys.stderr)
        return 2
    violations = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_check, args.attnlab, path, entry, precision, seed, args.cases)
                   for (_, path, entry, precision, _, seed) in runs]
        print("%-32s %-20s %-8s %4s %-7s %-70s %-9s %6s" % (
            "file", "entry", "precision", "seed", "verdict", "failing", "ratio", "time"))
        for (name, _, entry, precision, expect, seed), fut in zip(runs, futures):
            text, seconds = fut.result()
            verdict, failing, ratio, _ = parse_report(text, expect)
            if expect:
                ok = expect in failing and ratio != "-" and (
                    ratio == "inf" or float(ratio) >= args.min_ratio)
            else:
                ok = verdict == "pass"
            violations += not ok
            print("%-32s %-20s %-8s %4d %-7s %-70s %-9s %5.1fs%s" % (
                name, entry, precision, seed, verdict, ",".join(failing) or "-", ratio, seconds,
                "" if ok else "  <-- NOT AS REQUIRED"), flush=True)
            if not ok and verdict == "error":
                print(text, flush=True)
    print("%d runs (%d mutants, seeds %s), %d not as required" % (
        len(runs), len(mutants), args.seeds, violations))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
