#!/bin/sh
# attnlab check --head-dims / --tile-multiple: a kernel that takes only head
# dims 64, 128 and whole 16-row tiles fails when every shape is sent (it
# refuses valid inputs), passes when only its shapes are sent, and its twin
# with a bug on those shapes (the last tile dropped) still fails; the
# report states the shapes covered.
# Usage: check_shapes_test.sh ATTNLAB SOURCE_DIR
set -eu
attnlab="$1"
kernel="$2/grader/tests/data/shapes/whole_tiles.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # expected-status output-file args...
  want="$1"; out="$2"; shift 2
  status=0
  "$attnlab" check "$kernel" --cases 30 "$@" >"$out" 2>&1 || status=$?
  [ "$status" = "$want" ] || { echo "expected exit $want, got $status: check $*"; cat "$out"; exit 1; }
}
run 1 "$tmp/all.txt"
grep -q 'refused a valid input\|refuse' "$tmp/all.txt" || { echo "no refusal said"; cat "$tmp/all.txt"; exit 1; }
run 0 "$tmp/declared.txt" --head-dims 64,128 --tile-multiple 16 --max-seq 256
grep -q '^shapes: T_q, T_v up to 256 (multiples of 16); d_k, d_v in {64, 128}' "$tmp/declared.txt" ||
  { echo "the covered shapes are not stated"; cat "$tmp/declared.txt"; exit 1; }
run 1 "$tmp/wrong.txt" --head-dims 64,128 --tile-multiple 16 --max-seq 256 --entry attention_drops_last_tile
grep -q 'FAIL  oracle_agreement' "$tmp/wrong.txt" || { echo "the dropped tile is not caught"; cat "$tmp/wrong.txt"; exit 1; }
# A usage error: a tile multiple longer than the longest sequence.
run 2 "$tmp/usage.txt" --tile-multiple 512 --max-seq 256
echo "check --head-dims/--tile-multiple: declared shapes pass, a bug on them fails, others are not sent"
