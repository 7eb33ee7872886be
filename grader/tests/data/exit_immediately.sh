#!/bin/sh
# Test fixture: an "executable submission" that exits at once, without a hello.
echo "about to exit" >&2
exit 3
