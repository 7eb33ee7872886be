#!/bin/sh
# Test fixture: stands in for a Python interpreter that has no NumPy.
echo "ModuleNotFoundError: No module named 'numpy'" >&2
exit 1
