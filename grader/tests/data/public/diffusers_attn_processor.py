# Origin: huggingface/diffusers, src/diffusers/models/attention_processor.py,
# AttnProcessor.__call__ and Attention.get_attention_scores, commit
# 8fadb14a96ffd9edc83e07751d83e45980594f67 (read through the code index at that
# commit); the mask as UNet2DConditionModel.forward builds it,
# (1 - attention_mask.to(sample.dtype)) * -10000.0 (read in the code index, in
# copies of unet_2d_condition.py; that file was not read at a pinned commit).
# Licence: Apache-2.0.
# Not copied: a NumPy port of the arithmetic for one head.
# Arithmetic kept: float32 (upcast_attention and upcast_softmax change nothing for
# float32 inputs); attention_scores = torch.baddbmm(attention_mask, query, key^T,
# beta=1, alpha=self.scale), i.e. mask + scale * (q k^T), with self.scale =
# dim_head ** -0.5 (scale_qk true, the default); the mask additive: -10000.0
# where forbidden ((1 - keep) * -10000.0), 0 elsewhere; softmax (torch,
# max-subtracted); hidden_states = torch.bmm(attention_probs, value).
# Changed: torch -> NumPy float32; one head; the projections, group norm and
# residual left out; returns (O, A).
# Expected departures (before running): float32; an additive -1e4 mask: forbidden
# keys get weight where the allowed logits lie near or below them, and a fully
# forbidden row is the unmasked softmax (every logit shifted by -1e4), not refused.
# Expected names: text run: finite_fill (fill = -1e4, fill is added to the logits)
# + low_precision (float32), as ort_attention_cpu.cpp and candle_nomic_bert.cpp;
# own [--precision float32]: finite_fill (-1e4 added).
import numpy as np


def attention(Q, K, V, mask=None):
    query, key, value = (np.asarray(x, np.float32) for x in (Q, K, V))
    scale = np.float32(query.shape[-1] ** -0.5)
    if mask is not None:
        keep = 1 - np.asarray(mask, bool).astype(np.float32)
        attention_mask = (np.float32(1) - keep) * np.float32(-10000.0)
        scores = attention_mask + scale * (query @ key.T)
    else:
        scores = scale * (query @ key.T)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    probs = e / e.sum(axis=-1, keepdims=True)
    return probs @ value, probs
