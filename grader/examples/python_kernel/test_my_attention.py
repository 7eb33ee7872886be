# pytest: my_attention against attnlab's properties, in float32.
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from attnlab_check import check  # noqa: E402
from my_attention import my_attention  # noqa: E402


def test_my_attention():
    check(my_attention, precision="float32", op="attention")
