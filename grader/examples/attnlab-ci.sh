#!/usr/bin/env bash
# attnlab-ci.sh STEP [ARGS]: the commands of attnlab's CI examples, one step
# a call, shared by ci.yml (a C++ kernel, and submissions graded) and
# ci-python.yml (a Python kernel tested with pytest). Run from the root of a
# repository that holds attnlab at attnlab/ (a git submodule, say):
#
#   install                    build attnlab (its Debian packages first) and
#                              install it into $ATTNLAB_PREFIX
#                              (default ./attnlab-prefix): the attnlab binary,
#                              harnesses, CMake package, PROTOCOL.md
#   cpp-kernel PROJECT JUNIT   configure and build the CMake project PROJECT
#                              against the prefix (it calls
#                              attnlab_add_property_tests) and run its ctests,
#                              one per property, writing JUnit to JUNIT
#   grade FOLDER JUNIT         grade every submission in FOLDER with the
#                              installed attnlab (reports in attnlab-reports/)
#   python-kernel TESTS JUNIT  python3 -m pytest TESTS with the installed
#                              attnlab on PATH and attnlab's Python client
#                              (attnlab/python/) importable
#
# Every step exits non-zero when a property fails, so the job fails with it.
# grader/tests/ci_workflow_test.sh runs each workflow's steps in order on
# attnlab's own build (ATTNLAB_CI_BUILD_DIR: install that build instead of
# building again), so the examples cannot rot.
set -euo pipefail
attnlab_src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
prefix="${ATTNLAB_PREFIX:-$PWD/attnlab-prefix}"
step="${1:-}"
shift || true
case "$step" in
  install)
    if [ -n "${ATTNLAB_CI_BUILD_DIR:-}" ]; then
      build="$ATTNLAB_CI_BUILD_DIR"
    else
      "$attnlab_src/scripts/install-deps"
      build="$PWD/attnlab-build"
      cmake -S "$attnlab_src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DATTNLAB_BUILD_TESTS=OFF -DATTNLAB_BUILD_BENCH=OFF
      cmake --build "$build" --parallel "$(nproc)"
    fi
    cmake --install "$build" --prefix "$prefix"
    ;;
  cpp-kernel)
    project="$1" junit="$2"
    cmake -S "$project" -B kernel-build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo
    cmake --build kernel-build --parallel "$(nproc)"
    ctest --test-dir kernel-build --output-on-failure --output-junit "$PWD/$junit"
    ;;
  grade)
    folder="$1" junit="$2"
    "$prefix/bin/attnlab" grade "$folder" --jobs "$(nproc)" --out attnlab-reports --junit "$junit"
    ;;
  python-kernel)
    tests="$1" junit="$2"
    PATH="$prefix/bin:$PATH" PYTHONPATH="$attnlab_src/python${PYTHONPATH:+:$PYTHONPATH}" \
      python3 -m pytest "$tests" --junitxml="$junit"
    ;;
  *)
    echo "usage: attnlab-ci.sh install | cpp-kernel PROJECT JUNIT | grade FOLDER JUNIT | python-kernel TESTS JUNIT" >&2
    exit 2
    ;;
esac
