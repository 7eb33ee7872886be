#!/bin/sh
# install_offline_test.sh SOURCE_ROOT
# The Python client installs offline from Debian's packages alone
# (scripts/install-deps: python3-venv, python3-pip, python3-setuptools,
# python3-wheel, python3-wheel-whl), by python/README.md's two commands:
#   1. in a venv with the system's packages: pip install --no-index --no-build-isolation
#   2. in a venv without them: pip install --no-index --find-links /usr/share/python-wheels
# No index is read (--no-index, and any proxy points at a closed port), and
# the installed package is imported from the venv, not from the checkout.
set -eu
src=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnlab-pip-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# A copy: setuptools writes build/ and *.egg-info beside the sources.
mkdir "$tmp/src"
cp -R "$src/python/pyproject.toml" "$src/python/README.md" "$src/python/attnlab_check" "$tmp/src/"
export PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9
export HTTP_PROXY=$http_proxy HTTPS_PROXY=$https_proxy
cd "$tmp"

/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/pip" install --no-index --no-build-isolation "$tmp/src"
"$tmp/venv/bin/python" - "$tmp/venv" <<'PY'
import sys
import attnlab_check
import attnlab_check.pytest
venv = sys.argv[1]
for module in (attnlab_check, attnlab_check.pytest):
    assert module.__file__.startswith(venv), "imported %s, not from the venv" % module.__file__
assert callable(attnlab_check.pytest.attnlab_properties)
print("installed offline (--no-build-isolation):", attnlab_check.__file__)
PY

/usr/bin/python3 -m venv "$tmp/clean"
"$tmp/clean/bin/pip" install --no-index --find-links /usr/share/python-wheels "$tmp/src"
"$tmp/clean/bin/python" - "$tmp/clean" <<'PY'
import sys
import attnlab_check
assert attnlab_check.__file__.startswith(sys.argv[1]), attnlab_check.__file__
assert callable(attnlab_check.check) and callable(attnlab_check.list_properties)
print("installed offline (Debian's wheels):", attnlab_check.__file__)
PY
