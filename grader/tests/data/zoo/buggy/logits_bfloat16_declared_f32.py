"""Logits rounded to bfloat16 before the softmax while declaring bfloat16 storage
with float32 accumulation (the model keeps S in the accumulation type)."""
# expect-fail: oracle_agreement
# zoo-entries: attention:bfloat16/float32
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from logits_float16_declared_f32 import logits_stored  # noqa: E402
from zoo_common import to_bfloat16  # noqa: E402

attention = logits_stored(to_bfloat16)
