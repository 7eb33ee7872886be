#!/bin/sh
# gradebook_full_disk_test.sh ATTNLAB
# A gradebook whose rewrite fails keeps its old files whole, and the failure
# is an exit status 2 with a message (out_folder.hpp: written to a
# temporary, fsync'd, renamed).
# 1. RLIMIT_FSIZE (set by python3's resource module; works for any user):
#    a class of 150 students with long names (summary.csv > 16 KiB, each
#    report far smaller) graded once, then again under a 16 KiB file-size
#    limit: exit 2, "File too large", summary.csv/.json/.txt unchanged, no
#    temporary left.
# 2. A full tmpfs (as root, where mount works; else said and skipped):
#    the same, with "No space left on device".
set -u
attnlab=$1
tmp=$(mktemp -d /tmp/attnlab-full-disk-test-XXXXXX)
mnt=""
cleanup() { [ -n "$mnt" ] && umount "$mnt" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "gradebook_full_disk_test: $*" >&2; exit 1; }

class="$tmp/class"
long=$(printf 'x%.0s' $(seq 1 120))
for k in $(seq 1 150); do mkdir -p "$class/student_${k}_$long"; done

same() {  # same OUT SAVED: the gradebook in OUT is byte for byte SAVED's
  for f in summary.csv summary.json summary.txt; do
    cmp -s "$1/$f" "$2/$f" || fail "$1/$f changed after a failed write"
  done
  left=$(ls -A "$1" | grep -v '^\.attnlab-lock$' | grep '^\.' || true)
  [ -z "$left" ] || fail "temporary files left in $1: $left"
}

out="$tmp/out"
"$attnlab" grade "$class" --out "$out" > "$tmp/first.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/first.txt"; fail "the first grading: expected exit status 1 (no submissions)"; }
[ "$(stat -c %s "$out/summary.csv")" -gt 16384 ] || fail "summary.csv is too small for this test"
mkdir "$tmp/saved" && cp "$out"/summary.* "$tmp/saved/"
/usr/bin/python3 - "$attnlab" "$class" "$out" "$tmp/limited.txt" <<'PY'
import resource, signal, subprocess, sys
def limit():  # in the grader only: its output goes through a pipe, not a limited file
    resource.setrlimit(resource.RLIMIT_FSIZE, (16384, resource.RLIM_INFINITY))
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # as a shell leaves it: the grader must cope
p = subprocess.run([sys.argv[1], "grade", sys.argv[2], "--out", sys.argv[3]], preexec_fn=limit,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
open(sys.argv[4], "wb").write(p.stdout)
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)
PY
code=$?
[ "$code" = 2 ] || { cat "$tmp/limited.txt"; fail "under a 16 KiB file-size limit: expected exit status 2, got $code"; }
grep -q "cannot write $out/summary.csv: File too large" "$tmp/limited.txt" ||
  { grep -v "^\[" "$tmp/limited.txt"; fail "the message does not say summary.csv cannot be written"; }
same "$out" "$tmp/saved"

if [ "$(id -u)" = 0 ] && mkdir -p "$tmp/mnt" && mount -t tmpfs -o size=4m tmpfs "$tmp/mnt" 2>/dev/null; then
  mnt="$tmp/mnt"
  "$attnlab" grade "$class" --out "$mnt/out" > "$tmp/tmpfs1.txt" 2>&1
  [ $? = 1 ] || { cat "$tmp/tmpfs1.txt"; fail "grading into the tmpfs failed"; }
  rm -rf "$tmp/saved2" && mkdir "$tmp/saved2" && cp "$mnt/out"/summary.* "$tmp/saved2/"
  dd if=/dev/zero of="$mnt/filler" bs=4096 > /dev/null 2>&1  # until the tmpfs is full
  "$attnlab" grade "$class" --out "$mnt/out" > "$tmp/tmpfs2.txt" 2>&1
  code=$?
  [ "$code" = 2 ] || { cat "$tmp/tmpfs2.txt"; fail "on a full disk: expected exit status 2, got $code"; }
  grep -q "No space left on device" "$tmp/tmpfs2.txt" || { cat "$tmp/tmpfs2.txt"; fail "the message does not say the disk is full"; }
  same "$mnt/out" "$tmp/saved2"
else
  echo "gradebook_full_disk_test: no tmpfs can be mounted here (not root, or no CAP_SYS_ADMIN): the full-disk part is skipped, the file-size part ran"
fi
echo "gradebook_full_disk_test: ok"
