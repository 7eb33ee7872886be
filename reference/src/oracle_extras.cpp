// Multi-head attention and the sinusoidal encoding from their definitions
// (section 32.2.5), in 50-digit arithmetic with plain loops, like oracle.cpp.
#include "attn/ref/oracle_extras.hpp"

#include <cmath>
#include <string>

#include "oracle_inputs.hpp"

namespace attn::ref {

namespace {

using detail::require_finite;
using detail::shape;

std::string head_name(std::size_t i) { return "head " + std::to_string(i); }

void require_rows(const DMatrix& W, const char* w_name, std::size_t head, std::ptrdiff_t rows,
                  const char* x_name) {
  if (W.rows() != rows)
    throw OracleRefusal("oracle: " + head_name(head) + ": " + w_name + " is " +
                        shape(W.rows(), W.cols()) + " but " + x_name +
                        " has d_model = " + std::to_string(rows));
}

/// X W with X converted exactly and every product and sum in Real.
RealMatrix project(const DMatrix& X, const DMatrix& W) {
  RealMatrix P(X.rows(), W.cols());
  for (std::ptrdiff_t i = 0; i < X.rows(); ++i)
    for (std::ptrdiff_t l = 0; l < W.cols(); ++l) {
      Real s = 0;
      for (std::ptrdiff_t k = 0; k < X.cols(); ++k) s += Real(X(i, k)) * Real(W(k, l));
      P(i, l) = s;
    }
  return P;
}

/// exact_attention's definition with Real inputs: S = Q K^T / sqrt(d_k),
/// A = the masked softmax of S, returns O = A V (T_q x d_v).
RealMatrix real_attention_output(const RealMatrix& Q, const RealMatrix& K, const RealMatrix& V,
                                 const BoolMatrix& allowed) {
  const std::ptrdiff_t T_q = Q.rows, T_v = K.rows, d_k = Q.cols, d_v = V.cols;
  const Real root_dk = sqrt(Real(d_k));
  RealMatrix S(T_q, T_v);
  for (std::ptrdiff_t i = 0; i < T_q; ++i)
    for (std::ptrdiff_t j = 0; j < T_v; ++j) {
      Real dot = 0;
      for (std::ptrdiff_t k = 0; k < d_k; ++k) dot += Q(i, k) * K(j, k);
      S(i, j) = dot / root_dk;
    }
  const RealMatrix A = exact_softmax(S, allowed);
  RealMatrix O(T_q, d_v);
  for (std::ptrdiff_t i = 0; i < T_q; ++i)
    for (std::ptrdiff_t l = 0; l < d_v; ++l) {
      Real o = 0;
      for (std::ptrdiff_t j = 0; j < T_v; ++j) o += A(i, j) * V(j, l);
      O(i, l) = o;
    }
  return O;
}

}  // namespace

RealMatrix exact_multi_head_attention(const DMatrix& X_q, const DMatrix& X_kv,
                                      const MultiHeadWeights& w,
                                      const std::optional<BoolMatrix>& mask) {
  const std::ptrdiff_t d_model = X_q.cols(), T_q = X_q.rows(), T_v = X_kv.rows();
  if (X_kv.cols() != d_model)
    throw OracleRefusal("oracle: X_q is " + shape(X_q.rows(), X_q.cols()) + " and X_kv is " +
                        shape(X_kv.rows(), X_kv.cols()) + "; d_model differs");
  if (w.heads.empty()) throw OracleRefusal("oracle: no heads (h = 0)");
  const std::ptrdiff_t d_v = w.heads[0].W_V.cols();
  const std::ptrdiff_t h = static_cast<std::ptrdiff_t>(w.heads.size());
  for (std::size_t i = 0; i < w.heads.size(); ++i) {
    const HeadWeights& hw = w.heads[i];
    require_rows(hw.W_Q, "W_Q", i, d_model, "X_q");
    require_rows(hw.W_K, "W_K", i, d_model, "X_kv");
    require_rows(hw.W_V, "W_V", i, d_model, "X_kv");
    if (hw.W_Q.cols() != hw.W_K.cols())
      throw OracleRefusal("oracle: " + head_name(i) + ": W_Q is " +
                          shape(hw.W_Q.rows(), hw.W_Q.cols()) + " and W_K is " +
                          shape(hw.W_K.rows(), hw.W_K.cols()) + "; d_k differs");
    if (hw.W_Q.cols() == 0) throw OracleRefusal("oracle: " + head_name(i) + ": d_k = 0");
    if (hw.W_V.cols() != d_v)
      throw OracleRefusal("oracle: " + head_name(i) +
                          ": W_V has d_v = " + std::to_string(hw.W_V.cols()) +
                          " but head 0 has d_v = " + std::to_string(d_v));
  }
  if (w.W_O.rows() != h * d_v)
    throw OracleRefusal("oracle: W_O is " + shape(w.W_O.rows(), w.W_O.cols()) +
                        " but h * d_v = " + std::to_string(h * d_v));
  BoolMatrix allowed = BoolMatrix::Constant(T_q, T_v, true);
  if (mask) {
    if (mask->rows() != T_q || mask->cols() != T_v)
      throw OracleRefusal("oracle: mask is " + shape(mask->rows(), mask->cols()) +
                          " but T_q x T_v = " + shape(T_q, T_v));
    for (std::ptrdiff_t i = 0; i < T_q; ++i)
      for (std::ptrdiff_t j = 0; j < T_v; ++j) allowed(i, j) = !(*mask)(i, j);
  }
  require_finite(X_q, "X_q");
  require_finite(X_kv, "X_kv");
  for (std::size_t i = 0; i < w.heads.size(); ++i) {
    require_finite(w.heads[i].W_Q, head_name(i) + ": W_Q");
    require_finite(w.heads[i].W_K, head_name(i) + ": W_K");
    require_finite(w.heads[i].W_V, head_name(i) + ": W_V");
  }
  require_finite(w.W_O, "W_O");

  // The concatenation [O_1, ..., O_h], T_q x (h * d_v), then times W_O.
  RealMatrix concat(T_q, h * d_v);
  for (std::size_t i = 0; i < w.heads.size(); ++i) {
    const HeadWeights& hw = w.heads[i];
    const RealMatrix O_i = real_attention_output(project(X_q, hw.W_Q), project(X_kv, hw.W_K),
                                                 project(X_kv, hw.W_V), allowed);
    const std::ptrdiff_t first = static_cast<std::ptrdiff_t>(i) * d_v;
    for (std::ptrdiff_t t = 0; t < T_q; ++t)
      for (std::ptrdiff_t l = 0; l < d_v; ++l) concat(t, first + l) = O_i(t, l);
  }
  RealMatrix O(T_q, w.W_O.cols());
  for (std::ptrdiff_t t = 0; t < T_q; ++t)
    for (std::ptrdiff_t c = 0; c < w.W_O.cols(); ++c) {
      Real s = 0;
      for (std::ptrdiff_t k = 0; k < h * d_v; ++k) s += concat(t, k) * Real(w.W_O(k, c));
      O(t, c) = s;
    }
  return O;
}

RealMatrix exact_sinusoidal_positional_encoding(std::ptrdiff_t T_len, std::ptrdiff_t d) {
  if (T_len < 0 || d < 0) throw OracleRefusal("oracle: negative size T x d = " + shape(T_len, d));
  RealMatrix P(T_len, d);
  for (std::ptrdiff_t c = 0; c < d; ++c) {
    const std::ptrdiff_t two_r = c - c % 2;
    const Real scale = pow(Real(10000), Real(two_r) / Real(d));
    for (std::ptrdiff_t t = 0; t < T_len; ++t) {
      const Real angle = Real(t) / scale;
      P(t, c) = c % 2 == 0 ? Real(sin(angle)) : Real(cos(angle));
    }
  }
  return P;
}

}  // namespace attn::ref
