#!/bin/sh
# No function of the project's own code is longer than 120 lines (a reader
# takes a function in at one sitting; a longer one is split along its own
# stages). Universal Ctags (Debian universal-ctags) gives each function's
# first and last line; lambdas inside a function count toward it.
# Usage: function_length_test.sh SOURCE_DIR [LIMIT]
set -eu
root=$1
limit=${2:-120}
cd "$root"
if ! command -v ctags >/dev/null 2>&1; then
  echo "function_length_test: ctags (Debian universal-ctags) is not installed" >&2
  exit 1
fi
long=$(ctags -R --languages=C++ --kinds-C++=f --fields=+ne -x \
         --_xformat="%{end} %n %N %F" lib reference properties misconceptions grader/src |
       awk -v limit="$limit" '{ len = $1 - $2 + 1; if (len > limit) print len " lines: " $3 " (" $4 ":" $2 ")" }')
count=$(ctags -R --languages=C++ --kinds-C++=f -x lib reference properties misconceptions grader/src | wc -l)
if [ "$count" -lt 500 ]; then
  echo "function_length_test: ctags found only $count functions; is it Universal Ctags?" >&2
  exit 1
fi
if [ -n "$long" ]; then
  echo "functions over $limit lines (split them along their own stages):"
  echo "$long"
  exit 1
fi
echo "function_length_test: $count functions, none over $limit lines"
