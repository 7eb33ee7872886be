#!/bin/sh
# outside_test.sh ATTNLAB FILE KEY[,KEY...]|fault|none [CASES]
# Grades code written elsewhere (grader/tests/data/outside/) and checks the
# diagnosis in results.json: every failed test names one of the KEYs or
# nothing (a wrong name fails the test), and some failed test names one (the
# mistake is recognised); "fault": no test names any key and one diagnosis is
# a fault or "raises on every call"; "none": no key anywhere.
set -u
attnlab=$1 file=$2 want=$3 cases=${4:-100}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$attnlab" grade "$file" --cases "$cases" --results-json "$tmp/r.json" > "$tmp/report.txt" 2>&1
python3 - "$tmp/r.json" "$want" "$tmp/report.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); want = sys.argv[2]
report = open(sys.argv[3]).read()
failed = [t for t in r["tests"] if t["status"] == "failed"]
assert failed, "nothing failed: " + report[-2000:]
named, kinds = set(), set()
for t in failed:
    x = t["extra_data"]
    assert isinstance(x["misconceptions"], list), t["name"]
    named.update(x["misconceptions"]); kinds.add(x["diagnosis"])
print("named:", sorted(named), "diagnoses:", sorted(kinds))
if want == "fault":
    assert not named, "a fault was named a misconception: %s" % named
    assert kinds & {"fault", "raises_on_every_call"}, kinds
elif want == "none":
    assert not named, named
else:
    allowed = set(want.split(","))
    wrong = named - allowed
    assert not wrong, "wrong name(s) %s (expected %s or nothing)" % (sorted(wrong), want)
    assert named, "the mistake was not recognised (expected %s): %s" % (want, report[-3000:])
for bad in ("inverted" if want == "fault" else None, "not divided by sqrt" if want.startswith("wrong_scale") else None):
    if bad: assert bad not in report, "the report says %r" % bad
print("ok")
PY
