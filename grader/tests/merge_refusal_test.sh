#!/bin/sh
# merge_refusal_test.sh ATTNLAB SOURCE_DIR
# attnlab merge trusts no shard (shard_merge.hpp). Two shards of one class
# (classes A and B, same settings) merge; then, each on fresh copies, a
# shard whose row was edited (999/12, an item at -5, a score that is not the
# sum of its points, a forged 12/12 beside a results.json saying less, an
# item worth 3 instead of 2, an unknown exercise F9, another attnlab
# version, a report path "../../../x", a report that is a symlink or a hard
# link to a file outside the shard), a shard graded with another seed
# or other cases, and two shards sharing a student are refused with exit 2
# and a message saying why; nothing outside a shard is ever copied.
# A consistent forgery (row, results.json and report edited to agree) of an
# unsigned shard merges with a plain warning that merge cannot tell it; of
# a signed shard (the configuration's signing_key) it is refused, as are a
# removed signature, an edited report, another key, signed shards without
# the key, and settings that are not the rows'; edited columns are not taken.
# A signed row replayed from another run of the class, a removed row and a
# row rolled back to an earlier grading are refused (the gradebook's signed
# record: its id, student list and rows' signatures).
# --allow-overlap merges overlapping shards, the last one winning. A -o that
# already holds a gradebook that is not one of the inputs (a regrade into the
# merged folder) is refused and left as it was; one of the inputs may be -o.
# A refused merge leaves no -o folder it made.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-merge-refusal-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail() { echo "merge_refusal_test: $*" >&2; exit 1; }

mkdir -p "$tmp/A/good" "$tmp/A/bad" "$tmp/B/fine"
cp "$src/solutions/F3/attention.py" "$tmp/A/good/a.py"
cp "$src/exercises/mutants/f3_no_scale.py" "$tmp/A/bad/a.py"
cp "$src/solutions/F3/attention.py" "$tmp/B/fine/a.py"
grade() {  # grade CLASS OUT CASES [options]
  c=$1; o=$2; n=$3; shift 3
  "$attnlab" grade "$tmp/$c" --cases "$n" --jobs 2 --out "$tmp/$o" "$@" > "$tmp/$o.log" 2>&1
  [ $? -le 1 ] || { cat "$tmp/$o.log"; fail "grading $c into $o failed"; }
}
grade A shardA 5
grade B shardB 5
grade B shardB_seed 5 --seed 7
grade B shardB_cases 6

"$attnlab" merge "$tmp/shardA" "$tmp/shardB" -o "$tmp/merged" > "$tmp/ok.txt" 2>&1 ||
  { cat "$tmp/ok.txt"; fail "two honest shards did not merge"; }

refused() {  # refused NAME EXPECTED_TEXT SHARD...: merge refused, exit 2, message
  name=$1; text=$2; shift 2
  "$attnlab" merge "$@" -o "$tmp/out_$name" > "$tmp/$name.txt" 2>&1
  code=$?
  [ "$code" = 2 ] || { cat "$tmp/$name.txt"; fail "$name: expected exit status 2, got $code"; }
  grep -q -- "$text" "$tmp/$name.txt" || { cat "$tmp/$name.txt"; fail "$name: the message does not say \"$text\""; }
  [ -f "$tmp/out_$name/summary.json" ] && fail "$name: a gradebook was written"
  [ -e "$tmp/out_$name" ] && fail "$name: the refused merge left its -o folder behind"
  return 0
}
edit() {  # edit NAME PYTHON [SHARD]: a copy of SHARD (shardA) as $tmp/NAME, its summary.json edited (row r: bad's)
  rm -rf "$tmp/$1" && cp -r "$tmp/${3:-shardA}" "$tmp/$1"
  /usr/bin/python3 - "$tmp/$1/summary.json" "$2" <<'PY' || fail "cannot edit $1"
import json, sys
path, code = sys.argv[1], sys.argv[2]
s = json.load(open(path))
r = [x for x in s["submissions"] if x["student"] == "bad"][0]
exec(code)
json.dump(s, open(path, "w"), indent=2)
PY
}
edit s999 'r["score"] = 999'
refused score_999 "is not what its items earned" "$tmp/s999" "$tmp/shardB"
edit neg 'k = r["items"][0]; r["points"][k] = -5; r["score"] = sum(r["points"].values())'
refused negative "outside \[0, its maximum\]" "$tmp/neg" "$tmp/shardB"
edit notsum 'r["score"] = r["score"] + 1'
refused not_sum "is not what its items earned" "$tmp/notsum" "$tmp/shardB"
edit forged 'r["points"] = dict(r["max_points"]); r["score"] = r["max_score"]'
refused forged_full "is not the one of its students/" "$tmp/forged" "$tmp/shardB"
# 13 points instead of 12, its results.json edited alike: refused for disagreeing with shardB.
edit worth 'k = r["items"][0]; r["max_points"][k] = r["max_points"][k] + 1; r["max_score"] += 1
import os; f = os.path.join(os.path.dirname(path), r["report"][:-4] + ".results.json")
j = json.load(open(f)); j["max_score"] = r["max_score"]; json.dump(j, open(f, "w"))'
refused other_points "is worth" "$tmp/worth" "$tmp/shardB"
edit f9 'r["exercise"] = "F9"'
refused unknown_exercise 'unknown exercise "F9"' "$tmp/f9" "$tmp/shardB"
edit version 'for x in s["submissions"]: x["attnlab_version"] = "0.0.1"'
refused version "graded by attnlab" "$tmp/shardB" "$tmp/version"
echo "outside" > "$tmp/secret.txt"
edit escape 'r["report"] = "../../../secret.txt"'
refused report_path "is not students/" "$tmp/escape" "$tmp/shardB"
[ -e "$tmp/out_report_path/secret.txt" ] || [ -e "$tmp/secret.results.json" ] && fail "a file outside the shard was copied"
refused seed "seed 7 vs" "$tmp/shardB" "$tmp/shardB_seed"
refused cases "cases 6 vs 5" "$tmp/shardB" "$tmp/shardB_cases"
refused overlap "student fine is in" "$tmp/shardB" "$tmp/shardB"
# A symlinked report is refused (a shard may not point outside itself).
rm -rf "$tmp/linked" && cp -r "$tmp/shardB" "$tmp/linked"
ln -sf "$tmp/secret.txt" "$tmp/linked/students/fine%2Fa.py.txt"
refused symlink "symlink" "$tmp/shardA" "$tmp/linked"
# So is a hard link (to a file outside the shard): never copied into the merge.
rm -rf "$tmp/hard" && cp -r "$tmp/shardB" "$tmp/hard"
rm "$tmp/hard/students/fine%2Fa.py.txt" && ln "$tmp/secret.txt" "$tmp/hard/students/fine%2Fa.py.txt"
refused hardlink "is a hard link" "$tmp/shardA" "$tmp/hard"

# A consistent forgery: bad's row, its results.json, its text report and
# the row's digests of its reports all say 12/12. Unsigned shards cannot tell it from a real one: merge takes it
# and says so plainly.
forge='r["points"] = dict(r["max_points"]); r["score"] = r["max_score"]
import os; base = os.path.join(os.path.dirname(path), r["report"][:-4])
j = json.load(open(base + ".results.json")); j["score"] = r["max_score"]; json.dump(j, open(base + ".results.json", "w"))
open(base + ".txt", "a").write("score: 12 / 12\n")
import hashlib  # and the digests the row keeps of its reports
r["report_sha256"] = {f: hashlib.sha256(open(os.path.join(os.path.dirname(path), f), "rb").read()).hexdigest() for f in r["report_sha256"]}'
edit consistent "$forge"
"$attnlab" merge "$tmp/consistent" "$tmp/shardB" -o "$tmp/out_consistent" > "$tmp/consistent.txt" 2>&1 ||
  { cat "$tmp/consistent.txt"; fail "unsigned consistent shards did not merge"; }
grep -q "cannot tell a forged shard" "$tmp/consistent.txt" ||
  { cat "$tmp/consistent.txt"; fail "merge without a key did not say it cannot tell a forged shard"; }

# Signed shards (the configuration's signing_key): the same forgery is
# refused, naming the shard; so is a row whose signature was removed, an
# edited report, another key, and signed shards merged without the key.
key="a teacher's secret signing key"
printf '{"signing_key": "%s"}\n' "$key" > "$tmp/signed.json"
printf '{"signing_key": "another secret, as long"}\n' > "$tmp/other.json"
printf '{"cases": 5}\n' > "$tmp/nokey.json"
grade A signedA 5 --config "$tmp/signed.json"
grade B signedB 5 --config "$tmp/signed.json"
grep -rq "$key" "$tmp/signedA" && fail "the signing key is written into the shard"
"$attnlab" merge "$tmp/signedA" "$tmp/signedB" --config "$tmp/signed.json" -o "$tmp/merged_signed" \
  > "$tmp/signed_ok.txt" 2>&1 || { cat "$tmp/signed_ok.txt"; fail "two signed shards did not merge"; }
grep -q "cannot tell" "$tmp/signed_ok.txt" && fail "merge with the key says it cannot tell a forgery"
# The merged folder keeps the signatures: it merges again with the key.
"$attnlab" merge "$tmp/merged_signed" --config "$tmp/signed.json" -o "$tmp/merged_signed2" \
  > "$tmp/signed_again.txt" 2>&1 || { cat "$tmp/signed_again.txt"; fail "a merged signed folder does not merge again"; }
edit signed_forged "$forge" signedA
refused signed_forged "signed_forged, row of bad/a.py: its signature does not hold" \
  "$tmp/signed_forged" "$tmp/signedB" --config "$tmp/signed.json"
edit unsigned_forged "$forge"'
for x in s["submissions"]: x["signature"] = ""' signedA
refused signed_stripped "unsigned_forged, row of bad/a.py: it is not signed" \
  "$tmp/unsigned_forged" "$tmp/signedB" --config "$tmp/signed.json"
refused unsigned_with_key "shardA, row of bad/a.py: it is not signed" \
  "$tmp/shardA" "$tmp/signedB" --config "$tmp/signed.json"
edit report_edited 'pass' signedA
echo "score: 12 / 12" >> "$tmp/report_edited/students/bad%2Fa.py.txt"
refused report_edited "report_edited, row of bad/a.py: its students/bad%2Fa.py.txt is not the file graded" \
  "$tmp/report_edited" "$tmp/signedB" --config "$tmp/signed.json"
refused other_key "signedA, row of bad/a.py: its signature does not hold" \
  "$tmp/signedA" "$tmp/signedB" --config "$tmp/other.json"
refused signed_without_key "signedA, row of bad/a.py: it is signed, but no key was given" \
  "$tmp/signedA" "$tmp/signedB"
refused config_without_key 'has no "signing_key"' "$tmp/signedA" "$tmp/signedB" --config "$tmp/nokey.json"
# The gradebook's signed record (summary.json's "shard"): a signed row
# replayed from another run of the same class (signedA2, graded again with
# the same key and settings) is refused, so is a row removed (with or without
# its student struck from the list, with or without a key), and a row put
# back to an earlier grading of the same student in the same folder.
grade A signedA2 5 --config "$tmp/signed.json"
rm -rf "$tmp/replayed" && cp -r "$tmp/signedA" "$tmp/replayed"
/usr/bin/python3 - "$tmp/replayed/summary.json" "$tmp/signedA2/summary.json" <<'PY' || fail "cannot replay a row"
import json, sys
mine, other = (json.load(open(f)) for f in sys.argv[1:3])
theirs = [r for r in other["submissions"] if r["student"] == "good"][0]
mine["submissions"] = [theirs if r["student"] == "good" else r for r in mine["submissions"]]
json.dump(mine, open(sys.argv[1], "w"), indent=2)
PY
cp "$tmp/signedA2/students/good%2Fa.py."* "$tmp/replayed/students/"
refused replayed_row "replayed, row of good/a.py: a row of another gradebook" \
  "$tmp/replayed" "$tmp/signedB" --config "$tmp/signed.json"
edit removed_row 's["submissions"] = [x for x in s["submissions"] if x["student"] != "bad"]' signedA
refused removed_row "removed_row: student bad is in the shard's student list but has no row" \
  "$tmp/removed_row" "$tmp/signedB" --config "$tmp/signed.json"
edit removed_listed 's["submissions"] = [x for x in s["submissions"] if x["student"] != "bad"]
s["shard"]["students"].remove("bad")' signedA
refused removed_and_unlisted "removed_listed: its gradebook's signed record does not hold" \
  "$tmp/removed_listed" "$tmp/signedB" --config "$tmp/signed.json"
edit removed_unsigned 's["submissions"] = [x for x in s["submissions"] if x["student"] != "bad"]'
refused removed_unsigned "removed_unsigned: student bad is in the shard's student list but has no row" \
  "$tmp/removed_unsigned" "$tmp/shardB"
# bad regraded into signedA's copy; its earlier row (and reports) put back.
rm -rf "$tmp/rolled" && cp -r "$tmp/signedA" "$tmp/rolled"
"$attnlab" grade "$tmp/A" --cases 5 --out "$tmp/rolled" --students bad --config "$tmp/signed.json" \
  > "$tmp/rolled.log" 2>&1
[ $? -le 1 ] || { cat "$tmp/rolled.log"; fail "regrading bad failed"; }
/usr/bin/python3 - "$tmp/rolled/summary.json" "$tmp/signedA/summary.json" <<'PY' || fail "cannot roll a row back"
import json, sys
now, before = (json.load(open(f)) for f in sys.argv[1:3])
old = [r for r in before["submissions"] if r["student"] == "bad"][0]
assert old != [r for r in now["submissions"] if r["student"] == "bad"][0]
now["submissions"] = [old if r["student"] == "bad" else r for r in now["submissions"]]
json.dump(now, open(sys.argv[1], "w"), indent=2)
PY
cp "$tmp/signedA/students/bad%2Fa.py."* "$tmp/rolled/students/"
refused rolled_back "rolled: its gradebook's signed record does not hold" \
  "$tmp/rolled" "$tmp/signedB" --config "$tmp/signed.json"

# The settings and columns of summary.json are not signed: settings that are
# not the rows' are refused, and the merged columns are made from the settings.
edit settings_edited 's["settings"]["cases"] = 50' signedA
refused settings_edited "settings_edited: its summary.json's settings" \
  "$tmp/settings_edited" "$tmp/signedB" --config "$tmp/signed.json"
edit columns_edited 'for c in s["columns"]: c["max_score"] = 100' signedA
"$attnlab" merge "$tmp/columns_edited" "$tmp/signedB" --config "$tmp/signed.json" -o "$tmp/out_columns" \
  > "$tmp/columns.txt" 2>&1 || { cat "$tmp/columns.txt"; fail "shards with edited columns did not merge"; }
/usr/bin/python3 - "$tmp/out_columns/summary.json" <<'PY' || fail "the merged columns were taken from an edited shard"
import json, sys
m = json.load(open(sys.argv[1]))
assert [c["max_score"] for c in m["columns"]] == [12], m["columns"]
assert all(r["max_score"] == 12 for r in m["students"]), m["students"]
PY

# --allow-overlap: the last shard given wins.
"$attnlab" merge "$tmp/merged" "$tmp/shardB" --allow-overlap -o "$tmp/merged2" > "$tmp/overlap.txt" 2>&1 ||
  { cat "$tmp/overlap.txt"; fail "--allow-overlap did not merge"; }
/usr/bin/python3 - "$tmp" <<'PY' || fail "the merged gradebooks are not as expected"
import json, os, sys
tmp = sys.argv[1]
m = json.load(open(os.path.join(tmp, "merged2", "summary.json")))
assert sorted(r["student"] for r in m["students"]) == ["bad", "fine", "good"], m["students"]
for r in m["submissions"]:
    assert os.path.isfile(os.path.join(tmp, "merged2", r["report"])), r["report"]
PY

# -o holding a gradebook that is not an input: refused, left as it was.
cp "$tmp/merged2/summary.json" "$tmp/merged2.before.json"
"$attnlab" merge "$tmp/shardA" "$tmp/shardB" -o "$tmp/merged2" > "$tmp/over.txt" 2>&1
[ $? = 2 ] || { cat "$tmp/over.txt"; fail "merge into a folder holding another gradebook did not exit 2"; }
grep -q "already holds a gradebook that is not one of the inputs" "$tmp/over.txt" ||
  { cat "$tmp/over.txt"; fail "the refusal does not say why"; }
cmp -s "$tmp/merged2/summary.json" "$tmp/merged2.before.json" || fail "the gradebook already in -o was changed"
# Given as an input too, it is folded in.
"$attnlab" merge "$tmp/merged2" "$tmp/shardB" --allow-overlap -o "$tmp/merged2" > "$tmp/fold.txt" 2>&1 ||
  { cat "$tmp/fold.txt"; fail "merge into one of its inputs failed"; }
echo "merge_refusal_test: ok"
