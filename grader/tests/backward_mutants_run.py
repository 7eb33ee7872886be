#!/usr/bin/env python3
"""Runs `attnlab check --op attention_backward` on the backward pass's
mutants (exercises/mutants/backward/) and on the correct backward beside
them, at several seeds, and says whether each run ended as required.

Usage: backward_mutants_run.py ATTNLAB DIR [--lang py|cpp] [--seeds 1,2,3,4,5]
                               [--cases N] [--jobs 2] [--min-ratio 10] [--keys]
                               [--only FILE ...] [--correct FILE:PRECISION ...]

Every bw_*.py (--lang cpp: bw_*.cpp, B1 submissions) of DIR is a mutant
(DIR/../README.md, "The backward pass"): its header ('#' or '//' lines)
names the property that must catch it and the precision it declares,

    # caught by: backward_ds_rows_sum_to_zero
    # precision: float64

and its entry is `attention_backward` (a C++ file's is b1::attention_backward:
check takes no --entry for it). A mutant's run is as required when
that property fails at the seed with its worst entry at least --min-ratio
times its bound (check's "worst entry: ... (Nx)" line after shrinking; a
NaN, an infinite value or an exact rule missed counts as infinite). A
failure without a worst entry (a valid input refused) is not enough: the
mistake must be seen in the numbers, except for a mutant whose header says

    # seen as: crash

(a C++ product whose shapes fit only when T_q = T_v: Eigen's assertion
stops the process on the other shapes, and the shrinker ends on one of
them); its run is as required when that property fails with the process
killed by a signal. Such a mutant does not count towards the ten. The
correct files (correct_*.py or correct_*.cpp) name their entries and
precisions (a --correct FILE:PRECISION, e.g. a model solution elsewhere,
is one more, its entry attention_backward),

    # entries: backward_float64:float64 backward_float32:float32

and each must pass every property at every seed.

With --keys, every run is also held to its diagnosis (check's
"diagnosis: ..." lines, misconceptions/README.md, "The backward pass"): a
mutant's run must have at least one, and each must name the misconception
of its header's `key:` alone (with its `key parameter:`, e.g.
gradient=dQ,dK, when the header gives one); a correct file's run names no
misconception; --keys-seeds S,... holds only the runs of those seeds to it.
--only FILE (repeatable) keeps the runs of those files (by
name) while iterating. One line per run:

    file  entry  precision  seed  verdict  failing-properties  ratio  time

Exit status: 1 when a run is not as required, 0 otherwise, 2 for bad usage.
"""
import argparse
import concurrent.futures
import os
import re
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
            if not line.startswith(("#", "//")):
                break
            key, sep, value = line.lstrip("/#").strip().partition(":")
            if sep:
                fields[key.strip()] = value.strip()
    return fields


SUMMARY = re.compile(r"diagnosis: (.*?)(?:\. |\.$|, the same as under)")
NAMED = re.compile(r"^misconception (\S+?)(?: \((.*)\))?$")


def diagnosis_problem(text, key, parameter):
    """None when check's diagnoses agree with `key` (None: name nothing), else why not."""
    flat = re.sub(r"\s+", " ", text)
    summaries = SUMMARY.findall(flat)
    if key is None:
        named = [x for x in summaries if x.startswith(("misconception", "several", "two mistakes"))]
        return ("names %s" % named[0]) if named else None
    if not summaries:
        return "no diagnosis"
    want = parameter.replace(" ", "") if parameter else None
    for summary in summaries:
        m = NAMED.match(summary)
        if not m or m.group(1) != key:
            return "diagnosis: %s (want %s)" % (summary, key)
        if want and want not in (m.group(2) or "").replace(" ", "").split(";"):
            return "diagnosis: %s (want %s)" % (summary, want)
    return None


def run_check(attnlab, path, entry, precision, seed, cases):
    cmd = [attnlab, "check", path, "--op", "attention_backward", "--precision", precision,
           "--seed", str(seed)]
    if not path.endswith(".cpp"):
        cmd += ["--entry", entry]
    if cases:
        cmd += ["--cases", str(cases)]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                          env=dict(os.environ, NO_COLOR="1"))
    return proc.stdout + proc.stderr, time.monotonic() - start


def runs_of(directory, lang, extra_correct=()):
    """[(file, path, entry, precision, expected failing property or None, seen as,
    key, key parameter)]."""
    runs = []
    for token in extra_correct:
        path, _, precision = token.rpartition(":")
        if not path.endswith("." + lang) or not os.path.isfile(path):
            raise ValueError("--correct %s: not a .%s file with :PRECISION" % (token, lang))
        runs.append((os.path.basename(path), path, "attention_backward", precision, None, None,
                     None, None))
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if not name.endswith("." + lang):
            continue
        header = read_header(path)
        if name.startswith("bw_"):
            for field in ("mutant", "op", "precision", "caught by", "key"):
                if field not in header:
                    raise ValueError("%s: the header has no '%s:' line" % (name, field))
            if header["op"] != "attention_backward":
                raise ValueError("%s: op is %s, not attention_backward" % (name, header["op"]))
            seen = header.get("seen as", "numbers")
            if seen not in ("numbers", "crash"):
                raise ValueError("%s: seen as %s, not numbers or crash" % (name, seen))
            runs.append((name, path, "attention_backward", header["precision"],
                         header["caught by"], seen, header["key"],
                         header.get("key parameter")))
        elif "entries" in header:
            for token in header["entries"].split():
                entry, _, precision = token.partition(":")
                runs.append((name, path, entry, precision, None, None, None, None))
    return runs


CRASHED = re.compile(r"^FAIL  (\S+): crashed with signal \d+", re.M)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("attnlab")
    ap.add_argument("dir")
    ap.add_argument("--lang", default="py", choices=("py", "cpp"),
                    help="which mutants of DIR: bw_*.py or bw_*.cpp")
    ap.add_argument("--correct", action="append", default=[],
                    help="FILE:PRECISION, one more correct backward (e.g. a model solution)")
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--cases", type=int, default=0, help="cases per property (default: check's)")
    ap.add_argument("--jobs", type=int, default=2, choices=(1, 2))
    ap.add_argument("--min-ratio", type=float, default=10,
                    help="smallest error/bound of a mutant's expected failure")
    ap.add_argument("--keys", action="store_true",
                    help="also require each mutant's diagnosis to name its header's key")
    ap.add_argument("--keys-seeds", default="",
                    help="with --keys: hold only these seeds' runs to their key (default: every seed)")
    ap.add_argument("--only", action="append", default=[],
                    help="run only this file (by name; repeatable)")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",") if s]
    keys_seeds = {int(s) for s in args.keys_seeds.split(",") if s} or set(seeds)
    try:
        runs = [r + (seed,) for r in runs_of(args.dir, args.lang, args.correct) for seed in seeds
                if not args.only or r[0] in args.only]
    except ValueError as e:
        print("backward_mutants_run: %s" % e, file=sys.stderr)
        return 2
    mutants = {r[0] for r in runs if r[4] and r[5] == "numbers"}
    if (len(mutants) < 10 and not args.only) or not any(r[4] is None for r in runs) and not args.only:
        print("backward_mutants_run: %s holds %d mutants and %s correct entry" % (
            args.dir, len(mutants), "a" if any(r[4] is None for r in runs) else "no"), file=sys.stderr)
        return 2
    violations = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_check, args.attnlab, path, entry, precision, seed, args.cases)
                   for (_, path, entry, precision, _, _, _, _, seed) in runs]
        print("%-32s %-20s %-8s %4s %-7s %-70s %-9s %6s" % (
            "file", "entry", "precision", "seed", "verdict", "failing", "ratio", "time"))
        for (name, _, entry, precision, expect, seen, key, parameter, seed), fut in zip(runs, futures):
            text, seconds = fut.result()
            verdict, failing, ratio, _ = parse_report(text, expect)
            if expect and seen == "crash":
                ok = expect in CRASHED.findall(text)
                ratio = "crash" if ok else ratio
            elif expect:
                ok = expect in failing and ratio != "-" and (
                    ratio == "inf" or float(ratio) >= args.min_ratio)
            else:
                ok = verdict == "pass"
            why = diagnosis_problem(text, key, parameter) if args.keys and seed in keys_seeds else None
            if why:
                ok = False
                ratio = str(ratio) + "  " + why
            violations += not ok
            print("%-32s %-20s %-8s %4d %-7s %-70s %-9s %5.1fs%s" % (
                name, entry, precision, seed, verdict, ",".join(failing) or "-", ratio, seconds,
                "" if ok else "  <-- NOT AS REQUIRED"), flush=True)
            if not ok and verdict == "error":
                print(text, flush=True)
    print("%d runs (%d mutants seen in the numbers, %d seen as a crash, seeds %s), "
          "%d not as required" % (len(runs), len(mutants),
                                  len({r[0] for r in runs if r[5] == "crash"}), args.seeds,
                                  violations))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
