#!/bin/sh
# config_bounds_test.sh ATTNLAB SOURCE_DIR
# The teacher configuration's numbers are held to the command line's bounds
# (grader/src/grading/number_bounds.hpp): a value that would wrap, overflow
# or round to nothing is refused with exit status 2, its member, its value
# and the range; so is a --config that is not a regular file (a FIFO must
# not hang the grader, /dev/zero must not be read) or is over 1 MiB, and a
# member given twice in one object is refused, naming it and the file.
# A memory limit too small for the model solutions is refused (512 MiB at
# least, with why), and one at that minimum grades them in full; exercise
# ids with control characters are shown escaped.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-config-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "config_bounds_test: $*" >&2; exit 1; }
solution="$src/solutions/F3/attention.py"

# refused NAME REGEX ARGS...: exit status 2 within 60 s, the output matching REGEX.
refused() {
  name=$1
  regex=$2
  shift 2
  timeout 60 "$attnlab" grade "$solution" "$@" > "$tmp/$name.txt" 2>&1
  code=$?
  cat "$tmp/$name.txt"
  [ "$code" = 2 ] || fail "$name: expected exit status 2, got $code"
  grep -Eq -e "$regex" "$tmp/$name.txt" || fail "$name: the message does not match '$regex'"
}
# config NAME JSON REGEX: a configuration holding JSON is refused with REGEX.
config() {
  printf '%s\n' "$2" > "$tmp/$1.json"
  refused "$1" "$3" --config "$tmp/$1.json"
}

# 2^32 cases would wrap to 0 (no case run), 2^31 to a negative count.
config cases_2p32 '{"cases": 4294967296}' \
  'cases is 4294967296; it must be a whole number from 1 to 100000000'
config cases_2p31 '{"cases": 2147483648}' \
  'cases is 2147483648; it must be a whole number from 1 to 100000000'
config student_cases_fraction '{"student_cases": 2.5}' \
  'student_cases is 2.5; it must be a whole number from 1 to 100000000'
config seed_negative '{"seed": -1}' 'seed is -1; it must be a whole number from 0 to 18446744073709551615'
# 2^44 MiB shifted into bytes overflows 64 bits: no limit at all.
config memory_2p44 '{"limits": {"memory_mib": 17592186044416}}' \
  'limits.memory_mib is 17592186044416; it must be a whole number from 512 to 16777216'
config memory_fraction '{"limits": {"memory_mib": 512.5}}' \
  'limits.memory_mib is 512.5; it must be a whole number from 512 to 16777216'
# Too little memory to grade even the model solution (it would blame every
# student for running out of memory): refused below the documented 512 MiB.
config memory_1 '{"limits": {"memory_mib": 1}}' \
  'limits.memory_mib is 1; it must be a whole number from 512 to 16777216 \(below 512: below it not even the model solution can be graded'
config memory_511 '{"limits": {"memory_mib": 511}}' \
  'limits.memory_mib is 511; it must be a whole number from 512 to 16777216 \(below 512'
config processes_string '{"limits": {"max_processes": "64"}}' \
  'limits.max_processes is "64"; it must be a whole number from 0 to 1000000'
# 1e308 s in milliseconds overflows: a negative timeout.
config timeout_1e308 '{"limits": {"timeout_s": 1e308}}' \
  'limits.timeout_s is 1e\+308; it must be a number of seconds above 0 and at most 86400'
config timeout_zero '{"limits": {"timeout_s": 0}}' \
  'limits.timeout_s is 0; it must be a number of seconds above 0 and at most 86400'
config budget_negative '{"limits": {"submission_timeout_s": -5}}' \
  'limits.submission_timeout_s is -5; it must be a number of seconds from 0 \(no limit\) to 604800'
# Points of 1e308 sum to infinity: a null score in results.json.
config points_1e308 '{"exercises": {"F3": {"points": {"oracle_agreement": 1e308}}}}' \
  'exercises.F3.points.oracle_agreement is 1e\+308; it must be a number of points from 0 \(no points\) to 1e\+06'

# An exercise id with a NUL or an escape sequence is shown escaped, never
# as a known-looking "F3".
config exercise_nul '{"exercise": "F3\u0000"}' 'exercise: unknown exercise F3%00 \(attnlab grades'
config exercises_esc '{"exercises": {"F3\u001b[2J": {}}}' 'exercises\.F3%1B\[2J: unknown exercise F3%1B\[2J'
refused cli_exercise_esc 'unknown exercise F3%1B\[2J' --exercise "$(printf 'F3\033[2J')"

# A member given twice: refused, naming it (JSON readers keep one or the other).
config duplicate_cases '{"cases": 5, "seed": 1, "cases": 4294967296}' \
  'duplicate_cases.json: the member "cases" is given twice'
config duplicate_points '{"exercises": {"F3": {"points": {"oracle_agreement": 1, "oracle_agreement": 9}}}}' \
  'duplicate_points.json: the member "exercises.F3.points.oracle_agreement" is given twice'
# The same name in two different objects is no repeat.
printf '%s\n' '{"visibility": {"generated": "hidden"}, "exercises": {"F3": {"visibility":
  {"oracle_agreement": "hidden"}}}, "cases": 5}' > "$tmp/same_name_apart.json"
"$attnlab" grade "$solution" --config "$tmp/same_name_apart.json" > "$tmp/same_name_apart.txt" 2>&1 ||
  { cat "$tmp/same_name_apart.txt"; fail "a name used in two objects was refused"; }

# The command line has the same bounds.
refused cli_timeout_1e308 "--timeout must be a number of seconds > 0 and <= 86400, e.g. 2.5, got '1e308'" \
  --timeout 1e308
refused cli_cases_2p32 "--cases must be a whole number from 1 to 100000000, got '4294967296'" \
  --cases 4294967296
refused cli_memory_1 "--memory must be a whole number from 512 to 16777216, got '1' \(below 512: below it not even" \
  --memory 1
# attnlab check: the same minimum, and 0 (no limit) still taken.
timeout 60 "$attnlab" check "$solution" --memory 100 > "$tmp/check_memory.txt" 2>&1
code=$?
cat "$tmp/check_memory.txt"
[ "$code" = 2 ] || fail "check --memory 100: expected exit status 2, got $code"
grep -q "must be a whole number from 512 to 16777216, or 0 (no limit), got '100' (below 512" "$tmp/check_memory.txt" ||
  fail "check --memory 100: the message does not give the range and why"
timeout 600 "$attnlab" check "$solution" --memory 0 --cases 5 > "$tmp/check_memory0.txt" 2>&1 ||
  { cat "$tmp/check_memory0.txt"; fail "check --memory 0 (no limit) was not taken"; }

# Not a regular file: refused before a byte is read, and said what it is.
mkfifo "$tmp/fifo.json"
refused fifo 'fifo.json is a FIFO \(named pipe\), not a regular file' --config "$tmp/fifo.json"
refused dev_zero '/dev/zero is a character device, not a regular file' --config /dev/zero
refused directory 'is a directory, not a regular file' --config "$tmp"
# Over 1 MiB: refused by its size.
/usr/bin/python3 -c "import sys; open(sys.argv[1], 'w').write('{\"comment\": \"' + 'x' * (1 << 20) + '\"}')" \
  "$tmp/big.json"
refused big 'is 1048591 bytes, more than the 1048576 a configuration may have' --config "$tmp/big.json"

# Values at the bounds are taken (the model solution gets full marks).
printf '%s\n' '{"cases": 5, "seed": 18446744073709551615, "limits": {"timeout_s": 86400,
  "submission_timeout_s": 0, "memory_mib": 4096, "max_processes": 0}}' > "$tmp/ok.json"
"$attnlab" grade "$solution" --config "$tmp/ok.json" > "$tmp/ok.txt" 2>&1
code=$?
cat "$tmp/ok.txt"
[ "$code" = 0 ] || fail "a configuration at the bounds: expected exit status 0, got $code"
grep -q "cases: *5 per property" "$tmp/ok.txt" || fail "the configuration's 5 cases were not used"
# At the minimum memory both model solutions (Python, and C++ compiled under
# the same limit) still get full marks: the minimum is enough.
printf '%s\n' '{"cases": 5, "limits": {"memory_mib": 512}}' > "$tmp/least.json"
for model in "$solution" "$src/solutions/F3/attention.cpp"; do
  "$attnlab" grade "$model" --config "$tmp/least.json" > "$tmp/least.txt" 2>&1
  code=$?
  [ "$code" = 0 ] || { cat "$tmp/least.txt"; fail "$model at the least memory (512 MiB): expected exit status 0, got $code"; }
done
echo "config_bounds_test: ok"
