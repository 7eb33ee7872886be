#!/bin/sh
# The grader's stages (grader/src/<stage>/) form layers: a file may include
# headers of its own stage and of the stages in lower layers, never of a
# stage beside it or above it. So nothing below commands/ includes
# commands/, and there are no circular includes between folders.
# Usage: layering_test.sh GRADER_SRC_DIR. Exits 1 and lists every offending
# include; 0 when the layering holds.
set -eu
src="$1"
rank() {
  case "$1" in
    protocol|sandbox) echo 1 ;;
    exercises) echo 2 ;;
    submission|diagnosis) echo 3 ;;
    report) echo 4 ;;
    grading) echo 5 ;;
    commands) echo 6 ;;
    *) echo 0 ;;
  esac
}
bad=0
checked=0
for dir in "$src"/*/; do
  stage=$(basename "$dir")
  own=$(rank "$stage")
  if [ "$own" = 0 ]; then
    echo "unknown stage folder: $stage (add it to layering_test.sh)"
    bad=1
    continue
  fi
  [ -f "$dir/README.md" ] || { echo "$stage/ has no README.md"; bad=1; }
  for f in "$dir"*.hpp "$dir"*.cpp; do
    [ -f "$f" ] || continue
    checked=$((checked + 1))
    for inc in $(sed -n 's|^[[:space:]]*#include "\([a-z_]*\)/[^"]*"|\1|p' "$f"); do
      other=$(rank "$inc")
      [ "$other" = 0 ] && continue  # not a stage (attn/..., paths)
      if [ "$inc" != "$stage" ] && [ "$other" -ge "$own" ]; then
        echo "$stage/$(basename "$f") includes $inc/ (layer $other >= $own)"
        bad=1
      fi
    done
  done
done
[ "$checked" -gt 0 ] || { echo "no sources found under $src"; exit 1; }
[ "$bad" = 0 ] && echo "layering holds for $checked files"
exit "$bad"
