"""Log-softmax then exp: the row's logsumexp by np.logaddexp.reduce over
the keys in order (no explicit maximum), A = exp(S - lse).

Correct while |logsumexp| u < 1/4 (reference/TOLERANCE.md, (5L)): its
logsumexp carries a rounding of the size of |m|, so on the fixed edge rows of
two equal logits at -2e20 (double) or -2e9 (float) it loses log Z and answers
the weights 1 and 1, a row summing to 2; there it fails row_stochastic and
oracle_agreement, as it should. Its float16 entry computes the logits in
float32 from float16 inputs of up to 65504, so they reach about -1e9 (the
generated rows with every logit below -1e9, met in a deep run), where its
float32 logsumexp loses log Z the same way."""
# zoo-may-fail: attention:row_stochastic,oracle_agreement attention_f32:row_stochastic,oracle_agreement attention_f16:row_stochastic,oracle_agreement
# zoo-entries: attention:float64 attention_f32:float32 attention_f16:float16
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import entries, masked_logits  # noqa: E402


def core(Q, K, V, mask, dt, store):
    S, _ = masked_logits(Q, K, mask, dt)
    lse = np.logaddexp.reduce(S, axis=1, keepdims=True)
    A = store(np.exp(S - lse))
    return store(A @ V), A


attention, attention_f32, attention_f16 = entries(core)
