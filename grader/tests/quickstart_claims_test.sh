#!/bin/sh
# quickstart_claims_test.sh SOURCE_DIR
# scripts/quickstart's comment and the README say which model solutions
# command 1 grades; both must name the exercises of the model solutions in
# the bundled list that `attnlab grade` without a file grades (each
# exercise's "bundled" solutions in exercises/registry.json, read by
# grader/src/commands/bundled.cpp), and the script must run exactly that.
set -u
src=$1
/usr/bin/python3 - "$src" <<'PY'
import json, re, sys
src = sys.argv[1]
registry = json.load(open(src + "/exercises/registry.json"))
graded = sorted({e["id"] for e in registry["exercises"] if e.get("bundled", {}).get("solutions")})

def named(text, where):
    """The exercises of "model solutions of F1-F4" / "of F3 and F4" in text."""
    m = re.search(r"model solutions\s+of\s+(F\d)(?:\s*[-\u2013]\s*(F\d)|((?:\s*(?:,|and)\s*F\d)*))",
                  text)
    if not m:
        sys.exit("quickstart_claims_test: %s does not say which model solutions it grades" % where)
    if m.group(2):
        return ["F%d" % k for k in range(int(m.group(1)[1]), int(m.group(2)[1]) + 1)]
    return sorted([m.group(1)] + re.findall(r"F\d", m.group(3) or ""))

script = open(src + "/scripts/quickstart").read()
comment = "\n".join(l[1:] for l in script.splitlines() if l.startswith("#") and not l.startswith("#!"))
readme = open(src + "/README.md").read()
problems = []
for where, text in (("scripts/quickstart's comment", comment), ("README.md", readme)):
    said = named(text, where)
    if said != graded:
        problems.append("%s says the model solutions of %s; the bundled list grades those of %s"
                        % (where, ", ".join(said), ", ".join(graded)))
# What the script runs: attnlab grade with no file of its own (the bundled list).
if not re.search(r'attnlab" grade "\$@"\s*$', script.strip()):
    problems.append("scripts/quickstart no longer ends with `attnlab grade \"$@\"`")
if problems:
    sys.exit("quickstart_claims_test: " + "; ".join(problems))
print("quickstart_claims_test: both say %s" % ", ".join(graded))
PY
