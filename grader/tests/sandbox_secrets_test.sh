#!/bin/sh
# sandbox_secrets_test.sh ATTNLAB SOURCE_DIR DATA_DIR
# Submissions that try to read the teacher configuration and a model solution
# and to list the repository at run time (Python and C++), and a C++
# submission that includes the model solution, graded in the sandbox:
# - the grading completes (every property is reported);
# - the report shows they saw nothing, and the secret never appears in it;
# - the C++ file that includes a solution is not gradable ("No such file").
# Control runs without the sandbox show the fixtures do see the secret and
# compile the solution, so the checks above can fail.
# The C++ files are graded twice, the second time with the compiler cache
# warm (ccache, run inside the build's sandbox: submission/compiler_cache.hpp),
# and once more after the same file was built unsandboxed, where the solution
# is visible, into the cache the sandboxed compiler uses: still not gradable.
set -u
attnlab=$1
src=$2
data=$3
tmp=$(mktemp -d /tmp/attnlab-secrets-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# A compiler cache of the test's own, cold at the start.
export ATTNLAB_CACHE_DIR="$tmp/cache"
unset ATTNLAB_NO_CACHE
fail() { echo "sandbox_secrets_test: $*" >&2; exit 1; }

secret="attnlab-secret-$$-$(date +%s)"
config="$tmp/teacher/config.json"
mkdir -p "$tmp/teacher" "$tmp/subs"
printf '{"comment": "%s", "seed": 99, "cases": 5}\n' "$secret" > "$config"
solution="$src/solutions/F3/attention.py"
for f in reads_secrets.py reads_secrets.cpp includes_solution.cpp; do
  sed -e "s|@CONFIG@|$config|g" -e "s|@REPO@|$src|g" -e "s|@SOLUTION@|$solution|g" \
    "$data/sandbox/$f" > "$tmp/subs/$f"
done
sed -e "s|@SOLUTION@|$src/solutions/F3/attention.cpp|" -e '1a #define ATTNLAB_ABSOLUTE 1' \
  "$data/sandbox/includes_solution.cpp" > "$tmp/subs/includes_solution_abs.cpp"

sandbox_on() {
  grep -q "sandbox: *bubblewrap" "$1" || fail "the sandbox is not active: $(grep 'sandbox:' "$1")"
}

for f in reads_secrets.py reads_secrets.cpp; do
  out="$tmp/$f.txt"
  "$attnlab" grade "$tmp/subs/$f" --config "$config" --verbose > "$out" 2>&1
  code=$?
  cat "$out"
  sandbox_on "$out"
  [ "$code" = 1 ] || fail "$f: expected exit status 1 (graded, failing), got $code"
  grep -q "^score: " "$out" || fail "$f: the grading did not complete"
  grep -q "seed:        99" "$out" || fail "$f: the configuration's seed was not used"
  grep -q "$secret" "$out" && fail "$f: the configuration's content reached the report"
  grep -q "cannot read" "$out" || fail "$f: the report does not show the failed read"
  grep -q "repo: cannot list" "$out" || fail "$f: the repository was listed"
  grep -q "Model solution" "$out" && fail "$f: the model solution was read"
done

not_gradable() {  # FILE WHEN: graded in the sandbox, the file does not compile
  out="$tmp/$1.txt"
  "$attnlab" grade "$tmp/subs/$1" --verbose > "$out" 2>&1
  code=$?
  cat "$out"
  sandbox_on "$out"
  [ "$code" = 1 ] || fail "$1 ($2): expected exit status 1 (not gradable), got $code"
  grep -q "NOT GRADABLE: the submission did not compile" "$out" || fail "$1 ($2): not reported as not gradable"
  grep -q "No such file" "$out" || fail "$1 ($2): no 'No such file' from the compiler"
}
for when in "cold cache" "warm cache"; do
  for f in includes_solution.cpp includes_solution_abs.cpp; do not_gradable "$f" "$when"; done
done

# Without the sandbox: as root the submission still runs as a uid of its own,
# which cannot read the configuration in the grader's private folder; as
# another user (a control) it runs as that user and sees it.
out="$tmp/control.txt"
ATTNLAB_NO_SANDBOX=1 "$attnlab" grade "$tmp/subs/reads_secrets.py" --config "$config" > "$out" 2>&1
if [ "$(id -u)" = 0 ]; then
  grep -q "as root it still runs the submission as uid" "$out" || fail "without the sandbox, root did not drop the submission's uid"
  grep -q "$secret" "$out" && fail "without the sandbox, the submission run as root read the configuration"
  grep -q "config: cannot read" "$out" || fail "without the sandbox: the report does not show the failed read"
else
  grep -q "$secret" "$out" || fail "control: without the sandbox the fixture should see the secret"
fi
# Built where the solution is visible, into the folder the sandboxed compiler
# uses (as root the compile's uid's own, uid-64099, handed back to that uid).
cache_used="$ATTNLAB_CACHE_DIR"
[ "$(id -u)" = 0 ] && cache_used="$ATTNLAB_CACHE_DIR/uid-64099"
ATTNLAB_CACHE_DIR="$cache_used" ATTNLAB_NO_SANDBOX=1 "$attnlab" grade "$tmp/subs/includes_solution_abs.cpp" --cases 5 --verbose > "$out" 2>&1 ||
  { cat "$out"; fail "control: without the sandbox the included solution should compile and pass"; }
grep -q "compiler cache: miss" "$out" || { cat "$out"; fail "control: the unsandboxed build did not go through the compiler cache"; }
[ "$(id -u)" = 0 ] && chown -R 64099:64099 "$cache_used"
not_gradable includes_solution_abs.cpp "after an unsandboxed build with the solution visible"
grep -q "^score: 12 / 12" "$out" && fail "the sandboxed grade was served the unsandboxed build"
echo "sandbox_secrets_test: ok"
