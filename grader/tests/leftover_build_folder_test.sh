#!/bin/sh
# leftover_build_folder_test.sh ATTNLAB SOURCE_DIR
# A grader killed (kill -9) while a C++ submission compiles leaves the
# compile's folder, made by the sandboxed compiler under a sandbox uid that
# has no account. The next class run removes it, as that uid (never with
# root's rights): a link planted inside it is removed, not followed. A
# folder of a live process, and one of a real account, are left alone.
# Needs root (skipped otherwise: only root's runs sandbox uids).
set -u
attnlab=$1
src=$2
[ "$(id -u)" = 0 ] || { echo "leftover_build_folder_test: not root, skipped"; exit 0; }
tmp=$(mktemp -d /tmp/attnlab-leftover-test-XXXXXX)
base=${TMPDIR:-/tmp}
dead="$base/attnlab-build-pid99999999-AbCdEf"   # above any pid_max: no such process
live="$base/attnlab-build-pid$$-GhIjKl"         # this shell: alive
trap 'rm -rf "$tmp" "$dead" "$live" "$tmp-target"' EXIT
fail() { echo "leftover_build_folder_test: $*" >&2; exit 1; }

uid=64100
getent passwd $uid > /dev/null && { echo "leftover_build_folder_test: uid $uid has an account here, skipped"; exit 0; }
mkdir -p "$dead/sub" "$live" "$tmp-target"
echo keep > "$tmp-target/precious"
echo x > "$dead/sub/submission.o"
ln -s "$tmp-target" "$dead/sub/link"
chown -R $uid:$uid "$dead" "$live"
chown -h $uid:$uid "$dead/sub/link"

mkdir -p "$tmp/class/alice"
cp "$src/solutions/F3/attention.py" "$tmp/class/alice/"
"$attnlab" grade "$tmp/class" --cases 5 --out "$tmp/out" > "$tmp/stdout.txt" 2>&1 ||
  { cat "$tmp/stdout.txt"; fail "the class run failed"; }
[ ! -e "$dead" ] || { cat "$tmp/stdout.txt"; fail "the killed compile's folder is still there"; }
[ -f "$tmp-target/precious" ] || fail "a link inside the leftover was followed"
[ -d "$live" ] || fail "a live process's folder was removed"
grep -q "removed .*temporary folder" "$tmp/stdout.txt" || { cat "$tmp/stdout.txt"; fail "the removal is not said"; }
echo "leftover_build_folder_test: ok"
