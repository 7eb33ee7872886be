# pytest: my_attention against attnlab's properties, in float32: one test
# per property (test_my_attention[oracle_agreement], ...), each failing with
# its property's name and counterexample.
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from attnlab_check.pytest import attnlab_properties  # noqa: E402
from my_attention import my_attention  # noqa: E402

test_my_attention = attnlab_properties(my_attention, precision="float32", op="attention")
