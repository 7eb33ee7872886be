#!/bin/sh
# gradebook_resume_test.sh ATTNLAB SOURCE_DIR
# kill -9 in the middle of a class: the gradebook already holds every
# student finished (beside their reports), says the run did not complete,
# and the same command run again resumes it: it grades only the others,
# keeps the finished rows as they were, and removes what the killed run
# left (its temporary folders in TMPDIR; a memory cgroup of a dead grader,
# where this user may make one). batch.hpp, docs/MANUAL.md "Grading a class".
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-resume-test-XXXXXX)
cg=""
cleanup() { rm -f "$tmp/hold"; [ -n "$cg" ] && rmdir "$cg" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "gradebook_resume_test: $*" >&2; exit 1; }

class="$tmp/class"
for s in s1 s2 s3 s4; do mkdir -p "$class/$s"; cp "$src/solutions/F1/softmax_rows.py" "$class/$s/softmax.py"; done
mkdir -p "$class/zz_slow"
{ printf 'import os, time\nwhile os.path.exists("%s"):\n    time.sleep(0.05)\n' "$tmp/hold"
  cat "$src/solutions/F1/softmax_rows.py"; } > "$class/zz_slow/softmax.py"
touch "$tmp/hold"
chmod 755 "$tmp"  # the submission may run as another uid (the sandbox's, as root): it must see the flag
mkdir -p "$tmp/tmpdir"
export TMPDIR="$tmp/tmpdir"
out="$tmp/out"
run() { "$attnlab" grade "$class" --no-sandbox --cases 5 --jobs 1 --timeout 300 --out "$out"; }

"$attnlab" grade "$class" --no-sandbox --cases 5 --jobs 1 --timeout 300 --out "$out" > "$tmp/first.txt" 2>&1 &
pid=$!  # the grader itself (not a subshell): it is the one killed
n=0
until /usr/bin/python3 -c "
import json, sys
s = json.load(open('$out/summary.json'))
sys.exit(0 if len(s['students']) >= 4 else 1)" 2>/dev/null; do
  n=$((n + 1)); [ $n -lt 3000 ] || { cat "$tmp/first.txt"; fail "four students were never in the gradebook"; }
  kill -0 $pid 2>/dev/null || { cat "$tmp/first.txt"; fail "the grader ended before it was killed"; }
  sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
sleep 1  # its children die with it (PR_SET_PDEATHSIG)
cp "$out/summary.json" "$tmp/killed.json"
/usr/bin/python3 - "$out" <<'PY' || fail "the gradebook after kill -9 is not as expected"
import json, os, sys
out = sys.argv[1]
s = json.load(open(os.path.join(out, "summary.json")))
assert s["run"]["complete"] is False, s["run"]
names = sorted(r["student"] for r in s["students"])
assert names == ["s1", "s2", "s3", "s4"], names
assert sorted(s["run"]["graded"]) == names, s["run"]
for r in s["submissions"]:
    for ext in (".txt", ".results.json", ".junit.xml"):
        assert os.path.isfile(os.path.join(out, r["report"][:-4] + ext)), r["report"]
PY
ls "$TMPDIR" | grep -q "^attnlab-batch-pid$pid-" || fail "the killed run left no temporary folder (nothing to test the clean-up on)"
# A memory cgroup a dead grader left, below this process's own cgroup of
# the v1 memory hierarchy or of cgroup v2 (where this user can make one).
dead=$(sh -c 'echo $$')
for parent in $(/usr/bin/python3 - <<'PY'
own = {}
for line in open("/proc/self/cgroup"):
    _, controllers, path = line.rstrip("\n").split(":", 2)
    for c in controllers.split(",") if controllers else [""]:
        own[c] = path
for line in open("/proc/self/mountinfo"):
    before, after = line.split(" - ")
    point, (kind, _, options) = before.split()[4], after.split()[:3]
    if kind == "cgroup" and "memory" in options.split(",") and "memory" in own:
        print(point + own["memory"])
    if kind == "cgroup2" and "" in own:
        print(point + own[""])
PY
); do
  if [ -f "$parent/cgroup.procs" ] && mkdir "$parent/attnlab-$dead-0" 2>/dev/null; then
    cg="$parent/attnlab-$dead-0"
    break
  fi
done

rm -f "$tmp/hold"
run > "$tmp/second.txt" 2>&1
code=$?
[ "$code" = 0 ] || { cat "$tmp/second.txt"; fail "the resumed run: expected exit status 0, got $code"; }
grep -q "resuming the interrupted run" "$tmp/second.txt" || { cat "$tmp/second.txt"; fail "the rerun does not say it resumes"; }
grep -q "^\[1/1\] zz_slow/softmax.py: graded" "$tmp/second.txt" || { cat "$tmp/second.txt"; fail "the rerun did not grade zz_slow alone"; }
grep -q "^\[.*\] s1/" "$tmp/second.txt" && fail "the rerun graded s1 again"
/usr/bin/python3 - "$tmp/killed.json" "$out" <<'PY' || { cat "$tmp/second.txt"; fail "the resumed gradebook is not as expected"; }
import json, os, sys
before = {r["student"]: r for r in json.load(open(sys.argv[1]))["students"]}
s = json.load(open(os.path.join(sys.argv[2], "summary.json")))
after = {r["student"]: r for r in s["students"]}
assert sorted(after) == ["s1", "s2", "s3", "s4", "zz_slow"], sorted(after)
for name, row in before.items():
    assert after[name] == row, (before[name], after[name])  # kept as they were
assert after["zz_slow"]["score"] == after["zz_slow"]["max_score"] > 0, after["zz_slow"]
assert s["run"]["complete"] is True and "graded" not in s["run"], s["run"]
PY
ls "$TMPDIR" | grep -q "^attnlab-.*-pid$pid-" && fail "the killed run's temporary folders are still in TMPDIR"
grep -q "removed what earlier runs that were killed left behind" "$tmp/second.txt" ||
  { cat "$tmp/second.txt"; fail "the clean-up is not reported"; }
if [ -n "$cg" ]; then
  [ -d "$cg" ] && fail "the dead grader's memory cgroup $cg is still there"
else
  echo "gradebook_resume_test: no cgroup can be made here: the cgroup clean-up part is skipped"
fi
# A finished run is not resumed: the same command grades everyone again.
run > "$tmp/third.txt" 2>&1
grep -q "^\[5/5\]" "$tmp/third.txt" || { cat "$tmp/third.txt"; fail "a rerun after a complete run did not grade everyone"; }
echo "gradebook_resume_test: ok"
