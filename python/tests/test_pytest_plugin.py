"""attnlab_check.pytest: one pytest test per property, run as a user would
(pytest in a process of its own on a test file calling attnlab_properties),
against a correct and a wrong kernel. The number of tests is counted from
the catalogue (the properties attnlab check itself reports, in its JUnit
file), not written here."""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
sys.path.insert(0, PYTHON_DIR)
import attnlab_check  # noqa: E402  (from the checkout)

CASES = 30
SEED = 99

TEST_FILE = '''
from attnlab_check.pytest import attnlab_properties
import kernels

test_good = attnlab_properties(kernels.numpy_attention, cases={cases}, seed={seed})
test_wrong = attnlab_properties(kernels.numpy_attention_no_scale, cases={cases}, seed={seed})
'''


def catalogue(fn, tmp_path):
    """{property: "passed" | "failed" | "skipped"} from attnlab check's own JUnit file."""
    junit = str(tmp_path / ("%s.xml" % fn.__name__))
    result = attnlab_check.run(fn, cases=CASES, seed=SEED, junit=junit)
    assert result.returncode in (0, 1), result.report
    verdicts = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name").split(":")[0].strip()
        verdicts[name] = ("failed" if case.find("failure") is not None or case.find("error") is not None
                          else "skipped" if case.find("skipped") is not None else "passed")
    assert verdicts, result.report
    return verdicts


@pytest.fixture(scope="module")
def pytest_run(tmp_path_factory):
    """pytest -rA on a test file with one attnlab_properties per kernel: its output."""
    folder = tmp_path_factory.mktemp("plugin")
    (folder / "test_kernels_properties.py").write_text(TEST_FILE.format(cases=CASES, seed=SEED))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PYTHON_DIR, HERE]), NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider",
                           "test_kernels_properties.py"], cwd=str(folder), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    return proc.returncode, proc.stdout


def outcomes(output, test):
    """{property: "PASSED" | "FAILED" | "SKIPPED"} of test[property] in pytest -rA's summary."""
    found = {}
    for m in re.finditer(r"^(PASSED|FAILED|SKIPPED|ERROR)\s+(?:\[\d+\]\s+)?\S*::%s\[(\w+)\]" % test,
                         output, re.M):
        found[m.group(2)] = m.group(1)
    return found


def test_one_test_per_property_for_a_correct_kernel(pytest_run, tmp_path):
    import kernels
    expected = catalogue(kernels.numpy_attention, tmp_path)
    code, output = pytest_run
    got = outcomes(output, "test_good")
    assert sorted(got) == sorted(expected), output
    assert all(got[p] == {"passed": "PASSED", "skipped": "SKIPPED"}[v]
               for p, v in expected.items()), output
    assert code == 1, output  # test_wrong fails


def test_the_wrong_kernel_fails_naming_each_property(pytest_run, tmp_path):
    import kernels
    expected = catalogue(kernels.numpy_attention_no_scale, tmp_path)
    code, output = pytest_run
    got = outcomes(output, "test_wrong")
    assert sorted(got) == sorted(expected), output
    failed = sorted(p for p, v in expected.items() if v == "failed")
    assert failed and sorted(p for p, v in got.items() if v == "FAILED") == failed, output
    for prop in failed:
        # The failure's section opens with the property's name and shows its counterexample.
        assert re.search(r"^FAILED \S*::test_wrong\[%s\]" % prop, output, re.M), (prop, output)
        section = re.split(r"_+ test_wrong\[%s\] _+\n" % prop, output)[1].split("\n____", 1)[0]
        assert section.strip().startswith("%s failed: " % prop), (prop, section)
        assert "seed: %d" % SEED in section and "[FAIL] %s" % prop in section, (prop, section)
        assert "counterexample" in section or "on the text's example" in section, (prop, section)


def test_list_properties_is_the_catalogue(tmp_path):
    import kernels
    expected = catalogue(kernels.numpy_attention, tmp_path)
    assert attnlab_check.list_properties(kernels.numpy_attention) == list(expected)
