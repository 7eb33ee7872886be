#pragma once
// The oracle for the operations around attention (section 32.2.5):
// multi-head attention and the sinusoidal positional encoding, in 50-digit
// arithmetic from their definitions. Like oracle.hpp it shares no code with
// lib/; its weight types are its own.

#include <optional>
#include <vector>

#include "attn/ref/oracle.hpp"
#include "attn/ref/real.hpp"

namespace attn::ref {

/// One head's projections as doubles: W_Q, W_K: d_model x d_k, W_V: d_model x d_v.
struct HeadWeights {
  DMatrix W_Q;
  DMatrix W_K;
  DMatrix W_V;
};

/// All heads (same d_v) and W_O: (h * d_v) x d_model_out.
struct MultiHeadWeights {
  std::vector<HeadWeights> heads;
  DMatrix W_O;
};

/// Multi-head attention (section 32.2.5; Vaswani et al. 2017, section 3.2.2),
/// exactly: the projections Q_i = X_q W_Q^i, K_i = X_kv W_K^i, V_i = X_kv W_V^i
/// are formed in Real (never rounded to double), each head's attention is
/// evaluated in Real as in exact_attention (S = Q_i K_i^T / sqrt(d_k), the
/// masked softmax of exact_softmax, A V), the heads are concatenated with
/// head i in columns [i*d_v, (i+1)*d_v), and the result is multiplied by W_O.
///
/// X_q: T_q x d_model, X_kv: T_v x d_model (pass X twice for
/// self-attention); mask: T_q x T_v, true = forbidden. Returns
/// T_q x d_model_out. Throws OracleRefusal for h = 0, any shape that does
/// not fit (naming the head and the matrix), d_k == 0, heads with different
/// d_v, a non-finite input, or a query row with every key forbidden (row()).
RealMatrix exact_multi_head_attention(const DMatrix& X_q, const DMatrix& X_kv,
                                      const MultiHeadWeights& w,
                                      const std::optional<BoolMatrix>& mask);

/// Sinusoidal positional encoding (Vaswani et al. 2017, section 3.5):
/// P(t, 2r) = sin(t / 10000^(2r/d)), P(t, 2r + 1) = cos(t / 10000^(2r/d)),
/// t = 0 .. T_len - 1, in Real throughout. Returns T_len x d.
/// Throws OracleRefusal for a negative size.
RealMatrix exact_sinusoidal_positional_encoding(std::ptrdiff_t T_len, std::ptrdiff_t d);

}  // namespace attn::ref
