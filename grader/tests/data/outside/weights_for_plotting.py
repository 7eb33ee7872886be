# An attention layer that keeps the masked weights "for plotting" while the
# output was computed earlier, from the plain softmax, before masking was
# added to the code. Expected: mask_ignored_in_output, or no key.
# exercise: F3
import numpy as np


class SelfAttentionHead:
    def __init__(self):
        self.attention_map = None

    @staticmethod
    def _softmax(z):
        z = z - z.max(axis=-1, keepdims=True)
        ez = np.exp(z)
        return ez / ez.sum(axis=-1, keepdims=True)

    def __call__(self, Q, K, V, mask=None):
        Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
        if Q.shape[-1] != K.shape[-1] or K.shape[0] != V.shape[0]:
            raise ValueError("Q, K, V shapes do not fit")
        logits = Q @ K.T / np.sqrt(Q.shape[-1])
        probs = self._softmax(logits)
        output = probs @ V
        if mask is not None:
            mask = np.asarray(mask, dtype=bool)
            if mask.all(axis=-1).any():
                raise ValueError("a query row has no visible key")
            self.attention_map = self._softmax(np.where(mask, -np.inf, logits))
        else:
            self.attention_map = probs
        return output, self.attention_map


_head = SelfAttentionHead()


def scaled_dot_product_attention(Q, K, V, mask=None):
    return _head(Q, K, V, mask)
