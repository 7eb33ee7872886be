// The compiled interface (include/attn/abi.hpp): the caller's buffers read
// into the library's own Eigen objects, the operation (core.hpp), the result
// copied into the caller's buffers. Compiled, like all of libattn, with
// Eigen's namespace renamed (lib/CMakeLists.txt).
#include "attn/abi.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "attn/errors.hpp"
#include "core.hpp"
#include "tiled/kernel.hpp"

namespace attn {

const char* attention_tiled_kernel() { return detail::tiled::isa_name(); }

namespace raw {
namespace {

constexpr const char* kWhere = "attn::raw";

/// A view's sizes are >= 0 and its data is there when it has entries.
template <class V>
void require_view(const V& v, const char* name) {
  if (v.rows < 0 || v.cols < 0 || (v.data == nullptr && v.rows * v.cols > 0))
    throw ShapeError(std::string(kWhere) + ": " + name + " is " + shape_text(v.rows, v.cols) +
                     (v.rows < 0 || v.cols < 0 ? "" : " with no data"));
}

/// The library's own copy of a caller's row-major matrix.
template <class T>
Matrix<T> matrix(In<T> v, const char* name) {
  require_view(v, name);
  if (v.rows * v.cols == 0) return Matrix<T>(v.rows, v.cols);
  return Eigen::Map<const Matrix<T>>(v.data, v.rows, v.cols);
}

/// A caller's row-major matrix read in place (no copy).
template <class T>
Eigen::Map<const Matrix<T>> in_place(In<T> v, const char* name) {
  require_view(v, name);
  return {v.rows * v.cols == 0 ? nullptr : v.data, v.rows, v.cols};
}

/// The library's own copy of a caller's vector (n x 1).
template <class T>
Vector<T> vector(In<T> v, const char* name) {
  require_view(v, name);
  if (v.cols != 1)
    throw ShapeError(std::string(kWhere) + ": " + name + " is " + shape_text(v.rows, v.cols) +
                     " but must be a column (n x 1)");
  if (v.rows == 0) return Vector<T>(0);
  return Eigen::Map<const Vector<T>>(v.data, v.rows);
}

/// The library's own copy of an optional mask.
std::optional<Mask> mask_of(const MaskIn* m) {
  if (!m) return std::nullopt;
  return matrix(*m, "mask");
}

/// One result and the caller's buffer it goes to.
template <class T, class M>
struct Put {
  const M& result;
  Out<T> out;
  const char* name;
};

/// Every buffer's shape checked first (ShapeError, nothing written), then
/// every result copied in.
template <class... P>
void put(const P&... p) {
  const auto check = [](const auto& one) {
    require_view(one.out, one.name);
    if (one.out.rows != one.result.rows() || one.out.cols != one.result.cols())
      throw ShapeError(std::string(kWhere) + ": the output " + one.name + " is " +
                       shape_text(one.out.rows, one.out.cols) + " but the result is " +
                       shape_text(one.result.rows(), one.result.cols()));
  };
  (check(p), ...);
  const auto copy = [](const auto& one) {
    const auto& r = one.result;
    for (Index i = 0; i < r.rows(); ++i)
      for (Index j = 0; j < r.cols(); ++j) one.out.data[i * r.cols() + j] = r(i, j);
  };
  (copy(p), ...);
}

template <class T, class M>
Put<T, M> to(const M& result, Out<T> out, const char* name) {
  return {result, out, name};
}

template <class T>
void scores_impl(In<T> Q, In<T> K, Out<T> S) {
  put(to(core::scores(matrix(Q, "Q"), matrix(K, "K")), S, "S"));
}

template <class T>
void masked_softmax_impl(In<T> S, const MaskIn* mask, Out<T> A) {
  const Matrix<T> s = matrix(S, "S");
  put(to(mask ? core::masked_softmax(s, matrix(*mask, "mask")) : core::softmax_rows(s), A, "A"));
}

template <class T>
void attention_impl(In<T> Q, In<T> K, In<T> V, const MaskIn* mask, Out<T> O, Out<T> A) {
  const auto r = core::attention(matrix(Q, "Q"), matrix(K, "K"), matrix(V, "V"), mask_of(mask));
  put(to(r.O, O, "O"), to(r.A, A, "A"));
}

template <class T>
void attention_tiled_impl(In<T> Q, In<T> K, In<T> V, const MaskIn* mask,
                          const AttentionOptions* options, const TileSizes& tiles, Out<T> O,
                          Out<T> logsumexp) {
  const auto q = in_place(Q, "Q"), k = in_place(K, "K"), v = in_place(V, "V");
  const auto r = options ? core::attention_tiled(q, k, v, mask_of(mask), *options, tiles)
                         : core::attention_tiled(q, k, v, mask_of(mask), tiles);
  put(to(r.O, O, "O"), to(r.logsumexp, logsumexp, "logsumexp"));
}

template <class T>
void attention_backward_impl(In<T> Q, In<T> K, In<T> V, In<T> dO, const MaskIn* mask,
                             const AttentionOptions& options, Out<T> dQ, Out<T> dK, Out<T> dV) {
  const auto g = core::attention_backward(matrix(Q, "Q"), matrix(K, "K"), matrix(V, "V"),
                                          matrix(dO, "dO"), mask_of(mask), options);
  put(to(g.dQ, dQ, "dQ"), to(g.dK, dK, "dK"), to(g.dV, dV, "dV"));
}

template <class T>
void attention_backward_tiled_impl(In<T> Q, In<T> K, In<T> V, In<T> O, In<T> logsumexp, In<T> dO,
                                   const MaskIn* mask, const AttentionOptions& options,
                                   const TileSizes& tiles, Out<T> dQ, Out<T> dK, Out<T> dV) {
  const auto g = core::attention_backward_tiled(
      matrix(Q, "Q"), matrix(K, "K"), matrix(V, "V"), matrix(O, "O"),
      vector(logsumexp, "logsumexp"), matrix(dO, "dO"), mask_of(mask), options, tiles);
  put(to(g.dQ, dQ, "dQ"), to(g.dK, dK, "dK"), to(g.dV, dV, "dV"));
}

template <class T>
void multi_head_impl(In<T> X_q, const In<T>* X_kv, const HeadIn<T>* heads, std::size_t n_heads,
                     In<T> W_O, const MaskIn* mask, Out<T> O) {
  MultiHeadWeights<T> w;
  for (std::size_t i = 0; i < n_heads; ++i)
    w.heads.push_back({matrix(heads[i].W_Q, "W_Q"), matrix(heads[i].W_K, "W_K"),
                       matrix(heads[i].W_V, "W_V")});
  w.W_O = matrix(W_O, "W_O");
  const Matrix<T> r = X_kv ? core::multi_head_attention(matrix(X_q, "X_q"), matrix(*X_kv, "X_kv"),
                                                        w, mask_of(mask))
                           : core::multi_head_attention(matrix(X_q, "X"), w, mask_of(mask));
  put(to(r, O, "O"));
}

template <class T>
std::vector<Matrix<T>> matrices(const In<T>* v, std::size_t n, const char* name) {
  std::vector<Matrix<T>> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(matrix(v[i], name));
  return out;
}

template <class T>
void attention_varlen_impl(const In<T>* Q, std::size_t n_Q, const In<T>* K, std::size_t n_K,
                            const In<T>* V, std::size_t n_V, const Index* key_lengths,
                            std::size_t n_lengths, bool causal, Out<T>* O, Out<T>* A,
                            std::size_t n_out) {
  const auto r = core::attention_varlen(matrices(Q, n_Q, "Q"), matrices(K, n_K, "K"),
                                         matrices(V, n_V, "V"),
                                         std::vector<Index>(key_lengths, key_lengths + n_lengths),
                                         causal);
  if (n_out != r.size())
    throw ShapeError(std::string(kWhere) + ": attention_varlen: " + std::to_string(n_out) +
                     " outputs for " + std::to_string(r.size()) + " sequences");
  for (std::size_t n = 0; n < r.size(); ++n) put(to(r[n].O, O[n], "O"), to(r[n].A, A[n], "A"));
}

template <class T>
void positional_impl(Index T_len, Index d, Out<T> P) {
  put(to(core::sinusoidal_positional_encoding<T>(T_len, d), P, "P"));
}

}  // namespace

#define ATTN_RAW_DEFINE(T)                                                                       \
  void scores(In<T> Q, In<T> K, Out<T> S) { scores_impl(Q, K, S); }                              \
  void masked_softmax(In<T> S, const MaskIn* mask, Out<T> A) { masked_softmax_impl(S, mask, A); } \
  void attention(In<T> Q, In<T> K, In<T> V, const MaskIn* mask, Out<T> O, Out<T> A) {            \
    attention_impl(Q, K, V, mask, O, A);                                                         \
  }                                                                                              \
  void attention_tiled(In<T> Q, In<T> K, In<T> V, const MaskIn* mask,                           \
                       const AttentionOptions* options, const TileSizes& tiles, Out<T> O,        \
                       Out<T> logsumexp) {                                                       \
    attention_tiled_impl(Q, K, V, mask, options, tiles, O, logsumexp);                           \
  }                                                                                              \
  void attention_backward(In<T> Q, In<T> K, In<T> V, In<T> dO, const MaskIn* mask,              \
                          const AttentionOptions& options, Out<T> dQ, Out<T> dK, Out<T> dV) {    \
    attention_backward_impl(Q, K, V, dO, mask, options, dQ, dK, dV);                             \
  }                                                                                              \
  void attention_backward_tiled(In<T> Q, In<T> K, In<T> V, In<T> O, In<T> logsumexp, In<T> dO,   \
                                const MaskIn* mask, const AttentionOptions& options,            \
                                const TileSizes& tiles, Out<T> dQ, Out<T> dK, Out<T> dV) {       \
    attention_backward_tiled_impl(Q, K, V, O, logsumexp, dO, mask, options, tiles, dQ, dK, dV);  \
  }                                                                                              \
  void multi_head_attention(In<T> X_q, const In<T>* X_kv, const HeadIn<T>* heads,               \
                            std::size_t n_heads, In<T> W_O, const MaskIn* mask, Out<T> O) {      \
    multi_head_impl(X_q, X_kv, heads, n_heads, W_O, mask, O);                                    \
  }                                                                                              \
  void attention_varlen(const In<T>* Q, std::size_t n_Q, const In<T>* K, std::size_t n_K,      \
                         const In<T>* V, std::size_t n_V, const Index* key_lengths,              \
                         std::size_t n_lengths, bool causal, Out<T>* O, Out<T>* A,               \
                         std::size_t n_out) {                                                    \
    attention_varlen_impl(Q, n_Q, K, n_K, V, n_V, key_lengths, n_lengths, causal, O, A, n_out); \
  }                                                                                              \
  void sinusoidal_positional_encoding(Index T_len, Index d, Out<T> P) {                          \
    positional_impl(T_len, d, P);                                                                \
  }
ATTN_RAW_DEFINE(float)
ATTN_RAW_DEFINE(double)
#undef ATTN_RAW_DEFINE

void causal_mask(Index T_q, Index T_v, CausalAlignment alignment, MaskOut M) {
  put(to(core::causal_mask(T_q, T_v, alignment), M, "mask"));
}

void padding_mask(Index T_q, Index T_v, Index key_length, MaskOut M) {
  put(to(core::padding_mask(T_q, T_v, key_length), M, "mask"));
}

void combine_masks(MaskIn a, MaskIn b, MaskOut M) {
  put(to(core::combine_masks(matrix(a, "a"), matrix(b, "b")), M, "mask"));
}

}  // namespace raw
}  // namespace attn
