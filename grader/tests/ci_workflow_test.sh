#!/bin/sh
# ci_workflow_test.sh WORKFLOW SOURCE_DIR BUILD_DIR
# Runs a CI example (grader/examples/ci.yml, ci-python.yml) on this machine
# as GitHub Actions would, so the example cannot rot:
# - the workflow is valid YAML with one job; in a container, a step before
#   actions/checkout installs git (debian:12 has none; checkout with
#   submodules fails without it);
# - every `run` step after the checkout runs in order, with bash -e as
#   Actions does, in a fresh workspace laid out as the workflow expects:
#   attnlab/ (this checkout), kernel/ (examples/own_kernel), submissions/
#   (the F3 model solutions), tests/ (grader/examples/python_kernel);
#   ATTNLAB_CI_BUILD_DIR makes the install step install this build rather
#   than build again; ATTNLAB_CASES_SCALE=0.2 keeps the runs short;
# - each step exits 0 and the JUnit files it names parse, with one
#   testcase per kernel property for the C++ kernel.
# Exits 77 (skipped) for a workflow whose Python client cannot run yet:
# this build's attnlab has no `check` subcommand.
set -u
workflow=$1
src=$2
build=$3
tmp=$(mktemp -d /tmp/attnlab-ci-workflow-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "ci_workflow_test: $*" >&2; exit 1; }
py=/usr/bin/python3

ws="$tmp/workspace"
mkdir -p "$ws/steps"
"$py" - "$workflow" "$ws/steps" <<'PY' || fail "$workflow is not a workflow as expected"
import os, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
jobs = doc["jobs"]
assert len(jobs) == 1, "one job expected"
job = next(iter(jobs.values()))
steps = job["steps"]
checkout = [i for i, s in enumerate(steps) if str(s.get("uses", "")).startswith("actions/checkout")]
assert len(checkout) == 1, "one actions/checkout step expected"
if "container" in job:
    before = " ".join(s.get("run", "") for s in steps[: checkout[0]])
    assert "install" in before and "git" in before.split(), \
        "in a container, a step before actions/checkout must install git"
n = 0
for s in steps[checkout[0] + 1:]:
    if "run" not in s:
        continue
    assert "attnlab/grader/examples/attnlab-ci.sh" in s["run"], "a step not calling the shared script: " + s["run"]
    n += 1
    with open(os.path.join(sys.argv[2], "%02d.sh" % n), "w") as f:
        f.write("# %s\n%s\n" % (s.get("name", ""), s["run"]))
assert n >= 2, "no steps to run"
PY

ln -s "$src" "$ws/attnlab"
cp -r "$src/examples/own_kernel" "$ws/kernel"
mkdir -p "$ws/submissions"
cp "$src/solutions/F3/attention.py" "$ws/submissions/attention.py"
cp "$src/solutions/F3/attention.cpp" "$ws/submissions/attention.cpp"
cp -r "$src/grader/examples/python_kernel" "$ws/tests"

if grep -q "python-kernel" "$ws"/steps/*.sh; then
  "$build/grader/attnlab" check --help > /dev/null 2>&1 ||
    { echo "ci_workflow_test: SKIP: this build's attnlab has no 'check' subcommand yet"; exit 77; }
fi

export ATTNLAB_CI_BUILD_DIR="$build"
export ATTNLAB_CASES_SCALE=0.2
export PATH="/usr/bin:/bin:$PATH"  # Debian's python3, as in the workflow's container
for step in "$ws"/steps/*.sh; do
  echo "== $(head -1 "$step" | cut -c3-)"
  sed -n 2p "$step"
  (cd "$ws" && bash -e "$step") || fail "step '$(head -1 "$step" | cut -c3-)' failed"
done

for junit in $(grep -ho "attnlab-[a-z-]*junit.xml" "$ws"/steps/*.sh | sort -u); do
  [ -f "$ws/$junit" ] || fail "no $junit written"
  "$py" - "$ws/$junit" <<'PY' || fail "$junit is not as expected"
import sys, xml.dom.minidom
path = sys.argv[1]
doc = xml.dom.minidom.parse(path)
names = [c.getAttribute("name") for c in doc.getElementsByTagName("testcase")]
assert names, "no testcase"
if path.endswith("kernel-junit.xml"):
    props = [n for n in names if n.startswith("check_my_kernel.")]
    assert len(props) == 13 and "check_my_kernel.oracle_agreement" in props, names
if path.endswith("pytest-junit.xml"):  # one pytest test per property
    assert len(names) == 13 and "test_my_attention[oracle_agreement]" in names, names
print(path.rsplit("/", 1)[-1], "ok:", len(names), "testcases")
PY
done
echo "ci_workflow_test: ok"
