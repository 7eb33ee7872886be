#!/bin/sh
# attnlab experiment f5 (experiment_f5.hpp): a tiny run (2 seeds, 20 steps,
# two d_k) writes the six files, the CSV files are well formed with one row
# per run and curve point, the SVG figures parse and hold a curve per d_k,
# arm and metric and a dot per run, the report gives a verdict per d_k, the
# result does not depend on --jobs, and options out of bounds are refused.
# Usage: experiment_f5_test.sh ATTNLAB
set -u
attnlab="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$attnlab" experiment f5 --out "$tmp/a" --seeds 2 --steps 20 --d-k 4,32 --jobs 2 > "$tmp/a.txt" 2> "$tmp/a.err" ||
  { cat "$tmp/a.err"; fail "the tiny run failed"; }
"$attnlab" experiment f5 --out "$tmp/b" --seeds 2 --steps 20 --d-k 4,32 --jobs 1 > /dev/null 2>&1 ||
  fail "the tiny run on one thread failed"
cmp -s "$tmp/a/curves.csv" "$tmp/b/curves.csv" || fail "curves.csv depends on --jobs"
grep -q "^d_k = 4$" "$tmp/a.txt" || fail "stdout has no report for d_k = 4"

/usr/bin/python3 - "$tmp/a" <<'PY' || fail "the outputs are not as expected"
import csv, math, sys, xml.dom.minidom
d = sys.argv[1]
def rows(name, header):
    with open(f"{d}/{name}", newline="") as f:
        r = list(csv.reader(f))
    assert r[0] == header, (name, r[0])
    assert all(len(x) == len(header) for x in r[1:]), name
    return [dict(zip(header, x)) for x in r[1:]]
# 20 steps, curve_points 50: scored at every step, 0..20.
curves = rows("curves.csv", ["d_k", "arm", "seed", "step", "loss", "accuracy"])
assert len(curves) == 2 * 2 * 2 * 21, len(curves)
keys = {(r["d_k"], r["arm"], r["seed"]) for r in curves}
assert keys == {(k, a, s) for k in ("4", "32") for a in ("scaled", "unscaled") for s in ("1", "2")}, keys
for r in curves:
    loss, acc = float(r["loss"]), float(r["accuracy"])
    assert math.isfinite(loss) and loss >= 0, r
    assert 0 <= acc <= 1, r
# Step 0 is before any training: the two arms of a seed start from the same
# weights, so only the scale differs; at d_k = 32 it must change the loss.
start = {(r["d_k"], r["arm"], r["seed"]): float(r["loss"]) for r in curves if r["step"] == "0"}
assert start[("32", "scaled", "1")] != start[("32", "unscaled", "1")], start
summary = rows("curves_summary.csv", ["d_k", "arm", "step"] + [f"{m}_{s}" for m in ("loss", "accuracy")
                                                         for s in ("mean", "min", "q1", "median", "q3", "max")])
assert len(summary) == 2 * 2 * 21, len(summary)
for r in summary:
    for m in ("loss", "accuracy"):
        v = [float(r[f"{m}_{s}"]) for s in ("min", "q1", "median", "q3", "max")]
        assert v == sorted(v), r
        assert v[0] <= float(r[f"{m}_mean"]) <= v[-1], r
# The summary's mean is the mean of the per-run rows.
one = [float(r["loss"]) for r in curves if r["d_k"] == "4" and r["arm"] == "unscaled" and r["step"] == "20"]
s20 = [r for r in summary if r["d_k"] == "4" and r["arm"] == "unscaled" and r["step"] == "20"][0]
assert abs(float(s20["loss_mean"]) - sum(one) / 2) <= 1e-12 * max(1, abs(sum(one))), (one, s20)
final = rows("final.csv", ["d_k", "arm", "seed", "final_loss", "final_accuracy", "mean_accuracy", "steps_to_90"])
assert len(final) == 8, len(final)
for r in final:
    last = [c for c in curves if (c["d_k"], c["arm"], c["seed"], c["step"]) == (r["d_k"], r["arm"], r["seed"], "20")][0]
    assert r["final_accuracy"] == last["accuracy"] and r["final_loss"] == last["loss"], (r, last)
    assert r["steps_to_90"] == "" or 0 <= int(r["steps_to_90"]) <= 20, r

def svg(name):
    doc = xml.dom.minidom.parse(f"{d}/{name}")
    root = doc.documentElement
    assert root.tagName == "svg" and float(root.getAttribute("width")) > 0, name
    return doc
c = svg("curves.svg")
means = [p for p in c.getElementsByTagName("polyline") if p.getAttribute("class") == "mean"]
bands = [p for p in c.getElementsByTagName("polygon") if p.getAttribute("class") == "band"]
got = sorted((p.getAttribute("data-d-k"), p.getAttribute("data-arm"), p.getAttribute("data-metric")) for p in means)
want = sorted((k, a, m) for k in ("4", "32") for a in ("scaled", "unscaled") for m in ("loss", "accuracy"))
assert got == want, got
assert len(bands) == 8, len(bands)
for p in means:
    pts = p.getAttribute("points").split()
    assert len(pts) == 21, len(pts)
    assert all(math.isfinite(float(x)) for pt in pts for x in pt.split(",")), p.getAttribute("points")
f = svg("final.svg")
dots = [e for e in f.getElementsByTagName("circle") if e.getAttribute("class") == "seed"]
got = sorted((e.getAttribute("data-d-k"), e.getAttribute("data-arm"), e.getAttribute("data-metric")) for e in dots)
assert got == sorted(want * 2), got  # one dot per seed (2) for every d_k, arm and metric
verdicts = [t.firstChild.data for t in f.getElementsByTagName("text") if t.getAttribute("class") == "verdict"]
assert len(verdicts) == 4, verdicts
report = open(f"{d}/report.txt").read()
for k in ("4", "32"):
    assert f"d_k = {k}\n" in report, report
assert report.count("scaled trains faster (mean acc): ") == 2, report
assert "Run time: " in report
PY

# Bounds: each refused with status 2 and the option named.
expect_usage() {
  "$attnlab" experiment f5 --out "$tmp/x" "$@" > /dev/null 2> "$tmp/err"
  [ $? -eq 2 ] || fail "$* was not refused with status 2"
  grep -q -- "$1" "$tmp/err" || { cat "$tmp/err"; fail "$* refused without naming $1"; }
}
expect_usage --seeds 1
expect_usage --seeds 101
expect_usage --steps 5
expect_usage --d-k 0
expect_usage --d-k 2048
expect_usage --d-k 1,2,3,4,5,6,7,8,9
expect_usage --d-k 16,16
# An empty item is a mistyped list, not a shorter one.
expect_usage --d-k 16, --seeds 2 --steps 10
expect_usage --d-k ,16 --seeds 2 --steps 10
expect_usage --jobs 0
expect_usage --lr 0
expect_usage --optimizer rmsprop
# NaN compares false with every bound: refused by name, not drawn at font size -2^31.
expect_usage --font-scale nan
expect_usage --lr nan
"$attnlab" experiment f5 > /dev/null 2>&1
[ $? -eq 2 ] || fail "a run without --out was not refused"
# An --out that is a file is refused before any training.
: > "$tmp/file"
"$attnlab" experiment f5 --out "$tmp/file" --seeds 2 --steps 10 --d-k 4 > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "an --out that is a file was not refused"
grep -q "cannot make the folder" "$tmp/err" || { cat "$tmp/err"; fail "the file --out refused without saying why"; }
[ ! -e "$tmp/x" ] || fail "a refused run wrote its folder"
# A folder it cannot write into is refused before any training (as a user
# without root; skipped where setpriv or the user nobody is missing).
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null 2>&1 && id nobody > /dev/null 2>&1; then
  mkdir -p "$tmp/ro" && chmod 555 "$tmp/ro" && chmod 755 "$tmp"
  setpriv --reuid nobody --regid nogroup --clear-groups "$attnlab" experiment f5 --out "$tmp/ro" \
    --seeds 2 --steps 10 --d-k 4 > /dev/null 2> "$tmp/err"
  [ $? -eq 2 ] || fail "a read-only --out was not refused"
  grep -q "cannot write into the folder" "$tmp/err" || { cat "$tmp/err"; fail "the read-only --out refused without saying why"; }
  grep -q "runs of" "$tmp/err" && fail "a read-only --out was refused only after training"
fi
# An experiment that does not exist is named, with the list (not CLI11's
# "A subcommand is required").
"$attnlab" experiment f6 > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "experiment f6 was not refused with status 2"
grep -q "unknown experiment 'f6' (experiments: f5)" "$tmp/err" || { cat "$tmp/err"; fail "experiment f6: not named"; }
# A report that cannot be written to standard output is a failure, said.
if [ -w /dev/full ]; then
  "$attnlab" experiment f5 --out "$tmp/full" --seeds 2 --steps 10 --d-k 4 > /dev/full 2> "$tmp/err"
  [ $? -eq 2 ] || fail "experiment f5 > /dev/full did not exit 2"
  grep -q "cannot write standard output" "$tmp/err" || { cat "$tmp/err"; fail "experiment f5 > /dev/full: not said"; }
fi
echo "experiment f5: tiny run, outputs and bounds as expected"
