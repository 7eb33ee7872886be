#!/bin/sh
# shard_merge_test.sh ATTNLAB SOURCE_DIR
# A class of 9 students graded once, and again in three shards (--shard K/3,
# as a CI matrix or a Slurm array would) merged with `attnlab merge`: the
# shards split the students without overlap, and the merged gradebook
# (summary.csv, summary.json's students, submissions and overview) equals
# the unsharded one, times and dates aside.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-shard-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "shard_merge_test: $*" >&2; exit 1; }

class="$tmp/class"
put() { mkdir -p "$class/$1"; cp "$2" "$class/$1/$3"; }
put s1 "$src/solutions/F1/softmax_rows.py" a.py
put s2 "$src/solutions/F3/attention.py" a.py
put s3 "$src/exercises/mutants/f3_no_scale.py" a.py
put s4 "$src/exercises/mutants/f1_wrong_axis.py" a.py
put s5 "$src/exercises/F4/post_softmax_mask.py" a.py
put s6 "$src/exercises/F2/skeleton.py" a.py
put s7 "$src/solutions/F2/masked_softmax.py" a.py
put s7 "$src/solutions/F2/answers.json" answers.json
put s8 "$src/exercises/mutants/f3_inverted_mask.py" a.py
cp "$src/solutions/F1/softmax_rows.py" "$class/loose.py"

"$attnlab" grade "$class" --cases 8 --jobs 2 --out "$tmp/whole" > "$tmp/whole.txt" 2>&1
[ $? -le 1 ] || { cat "$tmp/whole.txt"; fail "the unsharded run failed"; }
for k in 1 2 3; do
  "$attnlab" grade "$class" --shard $k/3 --cases 8 --jobs 2 --out "$tmp/shard$k" > "$tmp/shard$k.txt" 2>&1
  [ $? -le 1 ] || { cat "$tmp/shard$k.txt"; fail "shard $k/3 failed"; }
  [ -f "$tmp/shard$k/summary.json" ] || mkdir -p "$tmp/shard$k"
done
parts=""
for k in 1 2 3; do [ -f "$tmp/shard$k/summary.json" ] && parts="$parts $tmp/shard$k"; done
"$attnlab" merge $parts -o "$tmp/merged" > "$tmp/merge.txt" 2>&1 || { cat "$tmp/merge.txt"; fail "merge failed"; }
"$attnlab" grade "$class" --shard 4/3 --out "$tmp/bad" > /dev/null 2>&1 && fail "--shard 4/3 was accepted"

/usr/bin/python3 - "$tmp" <<'PY' || fail "the merged gradebook differs from the unsharded one"
import csv, json, os, sys
tmp = sys.argv[1]
def load(d):
    return json.load(open(os.path.join(tmp, d, "summary.json")))
whole, merged = load("whole"), load("merged")
seen = []
for k in (1, 2, 3):
    p = os.path.join(tmp, "shard%d" % k, "summary.json")
    if os.path.exists(p):
        seen += [r["student"] for r in json.load(open(p))["students"]]
assert sorted(seen) == sorted(r["student"] for r in whole["students"]), seen  # a partition
assert len(set(seen)) == len(seen) == 9
def strip(rows, keys):
    return [{k: v for k, v in r.items() if k not in keys} for r in rows]
# shard_id: the gradebook each row was graded into (the whole run's, or a shard's).
assert strip(whole["students"], {"graded_at", "shard_id"}) == strip(merged["students"], {"graded_at", "shard_id"})
# report_sha256: the digests of reports that state their own time.
timed = {"graded_at", "seconds", "report_sha256", "shard_id"}
assert strip(whole["submissions"], timed) == strip(merged["submissions"], timed)
for r in merged["submissions"]:  # the merged reports are the shards' as graded
    assert sorted(r["report_sha256"]) == sorted(r["report"][:-4] + e for e in (".txt", ".results.json", ".junit.xml")), r
ow = {k: v for k, v in whole["overview"].items() if "seconds" not in k}
om = {k: v for k, v in merged["overview"].items() if "seconds" not in k}
assert ow == om, (ow, om)
def table(d):
    with open(os.path.join(tmp, d, "summary.csv"), newline="") as f:
        return [{k: v for k, v in r.items() if k != "graded_at"} for r in csv.DictReader(f)]
assert table("whole") == table("merged")
for r in merged["submissions"]:
    assert os.path.isfile(os.path.join(tmp, "merged", r["report"])), r["report"]
print("shard_merge_test: %d students, merged == unsharded" % len(seen))
PY
echo "shard_merge_test: ok"
