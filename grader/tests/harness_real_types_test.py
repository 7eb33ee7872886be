#!/usr/bin/env python3
"""The Python harness (grader/harness/attnlab_harness.py) accepts an answer
in every number format attnlab knows: every name `attnlab check --precision`
lists when it refuses an unknown one (the formats of
reference/src/number_format.cpp's table) is one of the harness's
REAL_TYPE_NAMES, so a format added to the table but not to the harness
fails here.

Usage: harness_real_types_test.py HARNESS.py ATTNLAB KERNEL.py
(exit status 0: every format is named)
"""
import importlib.util
import re
import subprocess
import sys


def load(path):
    spec = importlib.util.spec_from_file_location("attnlab_harness_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # moves fd 1 to stderr: this test reports on stderr
    return module


def attnlab_formats(attnlab, kernel):
    """The formats attnlab lists on refusing an unknown --precision."""
    run = subprocess.run([attnlab, "check", kernel, "--precision", "no_such_format", "--cases", "1"],
                         capture_output=True, text=True)
    found = re.search(r"'no_such_format' is not a type \(([^)]*)\)", run.stderr)
    if run.returncode != 2 or not found:
        sys.exit("attnlab did not refuse --precision no_such_format with its list (exit %d): %s"
                 % (run.returncode, run.stderr))
    return [name.strip() for name in re.split(r",| and ", found.group(1)) if name.strip()]


def main():
    harness = load(sys.argv[1])
    formats = attnlab_formats(sys.argv[2], sys.argv[3])
    missing = [f for f in formats if f not in harness.REAL_TYPE_NAMES]
    for f in formats:
        print("%s: %s" % (f, "named" if f not in missing else "MISSING from REAL_TYPE_NAMES"),
              file=sys.stderr)
    if len(formats) < 2 or missing:
        sys.exit(1)


if __name__ == "__main__":
    main()
