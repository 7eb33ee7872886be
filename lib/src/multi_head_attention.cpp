
#include <string>

#include "attn/errors.hpp"
#include "core.hpp"
#include "checks.hpp"
#include "softmax_impl.hpp"

namespace attn::core {

namespace {

constexpr const char* kWhere = "multi_head_attention";

std::string head_name(std::size_t i) { return "head " + std::to_string(i); }

/// Throws ShapeError unless W has `rows` rows (d_model of the input it projects).
template <class T>
void require_projection_rows(const Matrix<T>& W, const char* w_name, std::size_t head, Index rows,
                             const char* x_name) {
  if (W.rows() != rows)
    throw ShapeError(std::string(kWhere) + ": " + head_name(head) + ": " + w_name + " is " +
                     shape_text(W.rows(), W.cols()) + " but " + x_name +
                     " has d_model = " + std::to_string(rows));
}

/// Shapes of every weight, in the order: heads (W_Q, W_K, W_V), then W_O.
template <class T>
void require_weight_shapes(const MultiHeadWeights<T>& w, Index d_model, const char* xq_name,
                           const char* xkv_name) {
  if (w.heads.empty())
    throw ShapeError(std::string(kWhere) + ": no heads (h = 0); at least one is needed");
  const Index d_v = w.heads[0].W_V.cols();
  for (std::size_t i = 0; i < w.heads.size(); ++i) {
    const HeadWeights<T>& hw = w.heads[i];
    require_projection_rows(hw.W_Q, "W_Q", i, d_model, xq_name);
    require_projection_rows(hw.W_K, "W_K", i, d_model, xkv_name);
    require_projection_rows(hw.W_V, "W_V", i, d_model, xkv_name);
    if (hw.W_Q.cols() != hw.W_K.cols())
      throw ShapeError(std::string(kWhere) + ": " + head_name(i) + ": W_Q is " +
                       shape_text(hw.W_Q.rows(), hw.W_Q.cols()) + " and W_K is " +
                       shape_text(hw.W_K.rows(), hw.W_K.cols()) + "; both need d_k columns");
    if (hw.W_Q.cols() == 0)
      throw ShapeError(std::string(kWhere) + ": " + head_name(i) +
                       ": d_k = 0 (W_Q and W_K have no columns)");
    if (hw.W_V.cols() != d_v)
      throw ShapeError(std::string(kWhere) + ": " + head_name(i) + ": W_V is " +
                       shape_text(hw.W_V.rows(), hw.W_V.cols()) + " but head 0 has d_v = " +
                       std::to_string(d_v) + "; every head needs the same d_v");
  }
  const Index h = static_cast<Index>(w.heads.size());
  if (w.W_O.rows() != h * d_v)
    throw ShapeError(std::string(kWhere) + ": W_O is " + shape_text(w.W_O.rows(), w.W_O.cols()) +
                     " but the concatenated heads have h * d_v = " + std::to_string(h) + " * " +
                     std::to_string(d_v) + " = " + std::to_string(h * d_v) + " columns");
}

template <class T>
void require_finite_weights(const MultiHeadWeights<T>& w) {
  for (std::size_t i = 0; i < w.heads.size(); ++i) {
    const std::string head = head_name(i) + ": ";
    detail::require_finite(w.heads[i].W_Q, (head + "W_Q").c_str(), kWhere);
    detail::require_finite(w.heads[i].W_K, (head + "W_K").c_str(), kWhere);
    detail::require_finite(w.heads[i].W_V, (head + "W_V").c_str(), kWhere);
  }
  detail::require_finite(w.W_O, "W_O", kWhere);
}

template <class T>
Matrix<T> multi_head_impl(const Matrix<T>& X_q, const Matrix<T>& X_kv, const MultiHeadWeights<T>& w,
                          const std::optional<Mask>& mask, const char* xq_name,
                          const char* xkv_name) {
  const Index d_model = X_q.cols();
  require_weight_shapes(w, d_model, xq_name, xkv_name);
  if (mask) detail::require_mask_shape(*mask, X_q.rows(), X_kv.rows(), kWhere);
  detail::require_finite(X_q, xq_name, kWhere);
  detail::require_finite(X_kv, xkv_name, kWhere);
  require_finite_weights(w);

  const Index d_v = w.heads[0].W_V.cols();
  const Index h = static_cast<Index>(w.heads.size());
  // The concatenation [O_1, ..., O_h]: T_q x (h * d_v).
  Matrix<T> concat(X_q.rows(), h * d_v);
  for (std::size_t i = 0; i < w.heads.size(); ++i) {
    const HeadWeights<T>& hw = w.heads[i];
    const Matrix<T> Q = X_q * hw.W_Q;
    const Matrix<T> K = X_kv * hw.W_K;
    const Matrix<T> V = X_kv * hw.W_V;
    // Finite inputs can still overflow in a projection; name the head.
    const std::string head = head_name(i) + ": ";
    detail::require_finite(Q, (head + "Q = " + xq_name + " W_Q").c_str(), kWhere);
    detail::require_finite(K, (head + "K = " + xkv_name + " W_K").c_str(), kWhere);
    detail::require_finite(V, (head + "V = " + xkv_name + " W_V").c_str(), kWhere);
    // Errors of the head's attention name the head (its logits, its rows).
    const std::string where = std::string(kWhere) + ": " + head_name(i);
    concat.middleCols(static_cast<Index>(i) * d_v, d_v) =
        detail::attention_impl(Q, K, V, mask ? &*mask : nullptr, where.c_str()).O;
  }
  Matrix<T> O = concat * w.W_O;
  // Finite heads can still overflow in the output projection: refused like
  // an overflowing projection, never returned as Inf.
  detail::require_finite(O, "O = [O_1, ..., O_h] W_O", kWhere);
  return O;
}

}  // namespace

template <class T>
Matrix<T> multi_head_attention(const Matrix<T>& X, const MultiHeadWeights<T>& w,
                               const std::optional<Mask>& mask) {
  return multi_head_impl(X, X, w, mask, "X", "X");
}

template <class T>
Matrix<T> multi_head_attention(const Matrix<T>& X_q, const Matrix<T>& X_kv,
                               const MultiHeadWeights<T>& w, const std::optional<Mask>& mask) {
  if (X_q.cols() != X_kv.cols())
    throw ShapeError(std::string(kWhere) + ": X_q is " + shape_text(X_q.rows(), X_q.cols()) +
                     " and X_kv is " + shape_text(X_kv.rows(), X_kv.cols()) +
                     "; both need d_model columns");
  return multi_head_impl(X_q, X_kv, w, mask, "X_q", "X_kv");
}

template Matrix<float> multi_head_attention(const Matrix<float>&, const MultiHeadWeights<float>&,
                                            const std::optional<Mask>&);
template Matrix<double> multi_head_attention(const Matrix<double>&, const MultiHeadWeights<double>&,
                                             const std::optional<Mask>&);
template Matrix<float> multi_head_attention(const Matrix<float>&, const Matrix<float>&,
                                            const MultiHeadWeights<float>&,
                                            const std::optional<Mask>&);
template Matrix<double> multi_head_attention(const Matrix<double>&, const Matrix<double>&,
                                             const MultiHeadWeights<double>&,
                                             const std::optional<Mask>&);

}  // namespace attn::core
