#!/usr/bin/env python3
"""Grades one hostile submission and checks the reports (see README.md).

Usage: check_hostile.py ATTNLAB SUBMISSION [TIME_BUDGET_S]
(`# command: check` in its header: the file is a kernel for `attnlab check`.)
Exit 0 when every check holds; 1 with the list of what did not.
"""
import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

MAX_REPORT_BYTES = 1 << 20


def header(path):
    """The `# key: value` (or `// key: value`) lines of the file's header."""
    keys = {}
    with open(path, "rb") as f:
        for raw in f.read().split(b"\n")[:40]:
            line = raw.decode("utf-8", "replace").strip()
            m = re.match(r"^(?:#|//)\s*(expect-[a-z-]+|args|exercise|command):\s*(.*)$", line)
            if m:
                keys.setdefault(m.group(1), []).append(m.group(2).strip())
    return keys


def clean_text(name, data, problems):
    if len(data) > MAX_REPORT_BYTES:
        problems.append("%s is %d bytes (more than 1 MiB)" % (name, len(data)))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        problems.append("%s is not valid UTF-8: %s" % (name, e))
        return data.decode("utf-8", "replace")
    bad = [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F]
    if bad:
        problems.append("%s holds control characters: %r" % (name, sorted(set(bad))[:8]))
    return text


PR_SET_CHILD_SUBREAPER = 36  # prctl(2): orphaned descendants are reparented to this process


def descendants():
    """{pid: command line} of every live process below this one (zombies
    reaped and left out). With this process a child subreaper, a process the
    run started stays below it after its parent exits (a daemon's double
    fork included), and a process another run started never is."""
    while True:  # reap the orphans that ended, so they are not counted
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
    parent, cmdline = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:  # ended meanwhile
            continue
        if fields[0] != b"Z":
            parent[int(entry)] = int(fields[1])
            cmdline[int(entry)] = cmd
    below, frontier = {}, [os.getpid()]
    while frontier:
        top = frontier.pop()
        for pid, ppid in parent.items():
            if ppid == top and pid not in below:
                below[pid] = cmdline[pid]
                frontier.append(pid)
    return below


def main():
    attnlab, submission = sys.argv[1], sys.argv[2]
    # Leftovers are looked for among this run's descendants only, so a run
    # of the same file beside this one (another checkout's ctest) is not one.
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("prctl(PR_SET_CHILD_SUBREAPER) failed: errno %d" % ctypes.get_errno())
        return 1
    budget = float(sys.argv[3]) if len(sys.argv) > 3 else 240.0
    here = os.path.dirname(os.path.abspath(__file__))
    keys = header(submission)
    problems = []
    with tempfile.TemporaryDirectory(prefix="attnlab-hostile-") as out:
        text_path = os.path.join(out, "report.txt")
        json_path = os.path.join(out, "results.json")
        junit_path = os.path.join(out, "junit.xml")
        check = keys.get("command", ["grade"])[0] == "check"
        if check:  # attnlab check KERNEL: a text report and JUnit, no points
            args = [attnlab, "check", submission, "--cases", "30", "--report", text_path,
                    "--junit", junit_path]
        else:
            args = [attnlab, "grade", submission, "--cases", "30", "--report", text_path,
                    "--results-json", json_path, "--junit", junit_path]
        for extra in keys.get("args", []):
            args += extra.replace("@DIR@", here).split()
        t0 = time.monotonic()
        run = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=budget * 2)
        seconds = time.monotonic() - t0
        if seconds > budget:
            problems.append("took %.0f s, more than its budget of %.0f s" % (seconds, budget))
        want = int(keys.get("expect-exit", ["1"])[0])
        if run.returncode != want:
            problems.append("exit code %d, expected %d" % (run.returncode, want))
        stdout = clean_text("stdout", run.stdout, problems)
        reports = {}
        for name, path in (("text report", text_path), ("results.json", json_path),
                           ("JUnit XML", junit_path)):
            if not os.path.exists(path):
                if want != 2 and not (check and name == "results.json"):
                    problems.append("%s was not written" % name)
                continue
            with open(path, "rb") as f:
                reports[name] = clean_text(name, f.read(), problems)
        text = reports.get("text report", stdout)
        scores = [l for l in text.splitlines() if l.startswith("score:")]
        not_gradable = "NOT GRADABLE" in text
        if want != 2 and len(scores) != (0 if not_gradable or check else 1):
            problems.append("%d lines start with 'score:' (the grader writes one): %r"
                            % (len(scores), scores[:4]))
        results = None
        if "results.json" in reports:
            try:
                results = json.loads(reports["results.json"])
            except ValueError as e:
                problems.append("results.json does not parse: %s" % e)
        if "JUnit XML" in reports:
            try:
                ET.fromstring(reports["JUnit XML"].encode("utf-8"))
            except ET.ParseError as e:
                problems.append("JUnit XML does not parse: %s" % e)
        statuses = {}
        if results:
            for t in results.get("tests", []):
                pid = (t.get("extra_data") or {}).get("property") or t.get("name", "").split(":")[0]
                statuses[pid] = t.get("status")
        for pid in keys.get("expect-fail", []):
            if pid not in re.findall(r"^(?:\[FAIL\] |FAIL  )([a-z_]+)", text, re.M):
                problems.append("property %s did not fail" % pid)
        for pid in keys.get("expect-pass", []):
            if pid not in re.findall(r"^(?:\[PASS\] |PASS  )([a-z_]+)", text, re.M):
                problems.append("property %s did not pass" % pid)
        # The submission's own words must not show where the checkout is.
        repo = os.path.dirname(os.path.dirname(os.path.dirname(here)))
        for etype in keys.get("expect-clean-error", []):
            for line in text.splitlines():
                if etype + ":" in line and repo in line:
                    problems.append("the submission saw the checkout's path: " + line[:300])
        for rx in keys.get("expect-text", []):
            if not re.search(rx, text + "\n" + stdout, re.M):
                problems.append("the report does not match %r" % rx)
    # Nothing of the submission may still run: no process this run started
    # whose command line holds the file's name or what its header says it
    # starts (`# expect-gone: REGEX`, searched as Python `re`).
    # A process killed at the end of the run may take a moment to exit (a
    # child freeing 1.4 GiB on a loaded machine): only one still there after
    # 10 s of polling is left running.
    patterns = [re.escape(os.path.basename(submission))] + keys.get("expect-gone", [])
    deadline = time.monotonic() + 10
    while True:
        time.sleep(0.2)
        below = descendants()
        if time.monotonic() > deadline or not any(
                re.search(p, cmd) for p in patterns for cmd in below.values()):
            break
    for pattern in patterns:
        left = sorted(pid for pid, cmd in below.items() if re.search(pattern, cmd))
        if left:
            problems.append("processes left running (%s): %s" % (pattern, " ".join(map(str, left))))
    if problems:
        print("%s: %d problem(s)" % (submission, len(problems)))
        for p in problems:
            print("  - " + p)
        print("--- attnlab's output (first 4000 characters):")
        print(stdout[:4000])
        return 1
    print("%s: ok (exit %d, %.1f s)" % (os.path.basename(submission), run.returncode, seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
