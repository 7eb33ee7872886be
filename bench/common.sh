# Sourced by the bench scripts (bench/*.sh [BUILD_DIR]): strict mode, the
# checkout's root, the build folder (the first argument, else
# ATTNLAB_BUILD_DIR, else build/), its attnlab, and a temporary folder
# removed on exit.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${ATTNLAB_BUILD_DIR:-$root/build}}"
attnlab="$build/grader/attnlab"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
