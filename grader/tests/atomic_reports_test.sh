#!/bin/sh
# The single-file outputs of `attnlab grade FILE` (--results-json,
# --prairielearn-json, --junit, --report) and of `attnlab check` (--junit,
# --report) are replaced whole (a temporary beside the file, then rename(2)),
# never rewritten in place. Seen from outside: each target is made a hard
# link of a second name holding OLD; an in-place write would change that
# second name too (truncating and writing the shared inode), a replacement
# leaves it OLD. The targets then hold the new reports, and no temporary is
# left. A symbolic link (--report /dev/stdout) is still written through.
# Usage: atomic_reports_test.sh ATTNLAB SOURCE_DIR
set -eu
attnlab="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# out/NAME is a hard link of keep/NAME.
prepare() {
  rm -rf "$tmp/out" "$tmp/keep"
  mkdir "$tmp/out" "$tmp/keep"
  for name in "$@"; do
    printf 'OLD\n' >"$tmp/keep/$name"
    ln "$tmp/keep/$name" "$tmp/out/$name"
  done
}
check_kept() {
  for name in "$@"; do
    [ "$(cat "$tmp/keep/$name")" = OLD ] ||
      fail "writing out/$name changed the other name of the old file (written in place, not replaced)"
    [ -f "$tmp/out/$name" ] && [ ! -L "$tmp/out/$name" ] || fail "out/$name is not a new regular file"
    [ "$(stat -c %h "$tmp/out/$name")" = 1 ] || fail "out/$name still shares its inode"
  done
  left=$(find "$tmp/out" -name '.*' | head -n 3)
  [ -z "$left" ] || fail "temporary files left behind: $left"
}

prepare results.json pl.json junit.xml report.txt
"$attnlab" grade "$src/solutions/F3/attention.py" --cases 20 \
  --results-json "$tmp/out/results.json" --prairielearn-json "$tmp/out/pl.json" \
  --junit "$tmp/out/junit.xml" --report "$tmp/out/report.txt" >"$tmp/grade.txt" 2>&1 ||
  { cat "$tmp/grade.txt"; fail "grade exited $?"; }
check_kept results.json pl.json junit.xml report.txt
grep -q '"score"' "$tmp/out/results.json" || fail "results.json holds no score"
grep -q '"gradable"' "$tmp/out/pl.json" || fail "the PrairieLearn file holds no gradable"
grep -q '<testcase ' "$tmp/out/junit.xml" || fail "the JUnit file holds no testcase"
cmp -s "$tmp/grade.txt" "$tmp/out/report.txt" || fail "grade --report differs from what was printed"

prepare junit.xml report.txt
status=0
"$attnlab" check "$src/solutions/F3/attention.py" --cases 10 \
  --junit "$tmp/out/junit.xml" --report "$tmp/out/report.txt" >"$tmp/check.txt" 2>&1 || status=$?
[ "$status" = 0 ] || { cat "$tmp/check.txt"; fail "check exited $status"; }
check_kept junit.xml report.txt
grep -q '<testcase ' "$tmp/out/junit.xml" || fail "check's JUnit file holds no testcase"
cmp -s "$tmp/check.txt" "$tmp/out/report.txt" || fail "check --report differs from what was printed"
# A link is written through (the user's /dev/stdout, a file kept elsewhere).
printf 'OLD\n' >"$tmp/kept.txt"
ln -s "$tmp/kept.txt" "$tmp/link.txt"
"$attnlab" check "$src/solutions/F3/attention.py" --cases 10 --report "$tmp/link.txt" >/dev/null 2>&1 ||
  fail "check --report LINK failed"
[ -L "$tmp/link.txt" ] || fail "check --report LINK replaced the link"
grep -q '^attnlab check' "$tmp/kept.txt" || fail "check --report LINK did not write through the link"
echo "grade's and check's single-file outputs are replaced whole"
