"""Online softmax over key tiles of 128 that forgets to rescale the running
sum and the accumulator by exp(m_old - m_new) when the running maximum
grows (a row needs more than 128 keys, and a larger logit in a later tile)."""
# expect-fail: oracle_agreement
# zoo-entries: attention:float64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from online_no_rescale_tile64 import no_rescale  # noqa: E402

attention = no_rescale(128)
