# mutant: neg_inf_row_nan
# exercise: F1
# misconception: a row whose logits are all -inf returns NaN instead of raising.
# violates: section 32.2.4 (a row with no finite logit is an error)
# caught by: fully_forbidden_refused
# key: fully_forbidden_answered
# key parameter: answer=NaN
import numpy as np


def softmax_rows(S):
    with np.errstate(invalid="ignore"):
        E = np.exp(S - S.max(axis=1, keepdims=True))  # BUG: -inf - -inf = NaN, unchecked
        return E / E.sum(axis=1, keepdims=True)
