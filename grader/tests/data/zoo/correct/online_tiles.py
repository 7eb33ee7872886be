"""Online softmax over key tiles (FlashAttention, Dao et al. 2022,
Algorithm 1, written here): per tile the logits, the running maximum m,
the running sum l and the accumulator rescaled by exp(m_old - m_new),
O = acc / l at the end; A recomputed from the final m and l. One member,
four tile sizes: entries attention_tileN, attention_tileN_f32,
attention_tileN_f16 for N = 1, 3, 16, 64."""
# zoo-entries: attention_tile1:float64 attention_tile1_f32:float32 attention_tile1_f16:float16
# zoo-entries: attention_tile3:float64 attention_tile3_f32:float32 attention_tile3_f16:float16
# zoo-entries: attention_tile16:float64 attention_tile16_f32:float32 attention_tile16_f16:float16
# zoo-entries: attention_tile64:float64 attention_tile64_f32:float32 attention_tile64_f16:float16
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np  # noqa: E402

from zoo_common import entries, masked_logits  # noqa: E402


def online(tile):
    def core(Q, K, V, mask, dt, store):
        T_q, T_v = Q.shape[0], K.shape[0]
        S, _ = masked_logits(Q, K, mask, dt)  # read tile by tile below
        m = np.full((T_q, 1), -np.inf, dtype=dt)
        l = np.zeros((T_q, 1), dtype=dt)
        acc = np.zeros((T_q, V.shape[1]), dtype=dt)
        with np.errstate(invalid="ignore"):
            for start in range(0, T_v, tile):
                St = S[:, start:start + tile]
                m_new = np.maximum(m, St.max(axis=1, keepdims=True))
                seen = m_new > -np.inf  # rows with an allowed key so far
                alpha = np.where(seen & (m > -np.inf), np.exp(m - m_new), dt(0)).astype(dt)
                P = np.where(seen, np.exp(St - np.where(seen, m_new, dt(0))), dt(0)).astype(dt)
                l = alpha * l + P.sum(axis=1, keepdims=True)
                acc = alpha * acc + store(P) @ V[start:start + tile]
                m = m_new
        A = store(np.exp(S - m) / l)
        return store(acc / l), A

    return core


attention_tile1, attention_tile1_f32, attention_tile1_f16 = entries(online(1))
attention_tile3, attention_tile3_f32, attention_tile3_f16 = entries(online(3))
attention_tile16, attention_tile16_f32, attention_tile16_f16 = entries(online(16))
attention_tile64, attention_tile64_f32, attention_tile64_f16 = entries(online(64))
