#pragma once
// The compiled interface of libattn: plain pointers and sizes, no Eigen type.
//
// Why: Eigen decides the alignment of its heap blocks, whether it allocates
// them with malloc or with its own aligned allocator, and how its packed
// matrix products store, from the vector width of each translation unit.
// A program built with -march=native (AVX-512: 64 bytes) and a library
// built for the baseline x86-64 (16 bytes) disagree on all three, so no
// Eigen object may cross between them, and no Eigen template instantiated
// in one may be merged by the linker with the other's (the one-definition
// rule). So libattn is compiled with Eigen's namespace renamed
// (-DEigen=attn_eigen_lib, lib/CMakeLists.txt; ctest
// lib/library_symbols_no_eigen checks that libattn.a neither defines nor
// needs a symbol of namespace Eigen), exposes only the functions below, and
// the Eigen interface of the other headers (attention.hpp, ...) is inline
// code compiled in the caller's own translation unit with the caller's own
// flags: it allocates the results with the caller's Eigen and calls these.
// No compile definition is imposed on the caller.
//
// Conventions of every function here:
// - A matrix is dense and row-major: entry (i, j) at data[i * cols + j]; any
//   alignment; data may be null when rows * cols == 0.
// - Inputs are read, never kept (attention_tiled reads them in place, the
//   others copy them into the library's storage). Outputs are caller-owned
//   buffers of exactly the shape the function documents (the library
//   computes into its own storage and copies the result in; so the result
//   is held twice while it is copied). An output whose shape is not that
//   one, or a view with a negative size or no data, is a ShapeError naming
//   "attn::raw" and the buffer, thrown before anything is written.
// - Each function checks, computes and throws exactly as the Eigen function
//   of the same name (the header named at each), with the same messages.
// - Instantiated for T = float and T = double (overloads).
#include <cstddef>

namespace attn {
struct TileSizes;            // attention_tiled.hpp
struct AttentionOptions;     // attention_options.hpp
enum class CausalAlignment;  // masks.hpp
}  // namespace attn

namespace attn::raw {

using Index = std::ptrdiff_t;  // = Eigen::Index

/// A read-only dense row-major rows x cols matrix.
template <class T>
struct In {
  const T* data = nullptr;
  Index rows = 0;
  Index cols = 0;
};

/// A caller-owned dense row-major rows x cols buffer the result is written to.
template <class T>
struct Out {
  T* data = nullptr;
  Index rows = 0;
  Index cols = 0;
};

/// A boolean mask (true = forbidden), T_q x T_v, read-only or written.
using MaskIn = In<bool>;
using MaskOut = Out<bool>;

/// One head's projections W_Q, W_K, W_V (multi_head_attention.hpp).
template <class T>
struct HeadIn {
  In<T> W_Q, W_K, W_V;
};

/// The mask of each function below: nullptr = no mask.
#define ATTN_RAW_DECLARE(T)                                                                      \
  /* scores.hpp: S (T_q x T_v) = Q K^T / sqrt(d_k). */                                          \
  void scores(In<T> Q, In<T> K, Out<T> S);                                                       \
  /* masked_softmax.hpp: A (the shape of S); mask == nullptr is softmax_rows. */                 \
  void masked_softmax(In<T> S, const MaskIn* mask, Out<T> A);                                   \
  /* attention.hpp: O (T_q x d_v) and A (T_q x T_v). */                                          \
  void attention(In<T> Q, In<T> K, In<T> V, const MaskIn* mask, Out<T> O, Out<T> A);            \
  /* attention_tiled.hpp: O (T_q x d_v), logsumexp (T_q x 1); options == nullptr is the form  */ \
  /* without options. */                                                                         \
  void attention_tiled(In<T> Q, In<T> K, In<T> V, const MaskIn* mask,                           \
                       const AttentionOptions* options, const TileSizes& tiles, Out<T> O,        \
                       Out<T> logsumexp);                                                        \
  /* attention_backward.hpp: dQ (T_q x d_k), dK (T_v x d_k), dV (T_v x d_v). */                 \
  void attention_backward(In<T> Q, In<T> K, In<T> V, In<T> dO, const MaskIn* mask,              \
                          const AttentionOptions& options, Out<T> dQ, Out<T> dK, Out<T> dV);     \
  /* attention_backward.hpp: the tiled form; logsumexp is T_q x 1. */                            \
  void attention_backward_tiled(In<T> Q, In<T> K, In<T> V, In<T> O, In<T> logsumexp, In<T> dO,   \
                                const MaskIn* mask, const AttentionOptions& options,            \
                                const TileSizes& tiles, Out<T> dQ, Out<T> dK, Out<T> dV);        \
  /* multi_head_attention.hpp: X_kv == nullptr is self-attention (X_kv = X_q); */               \
  /* heads: n_heads entries; O: T_q x W_O.cols. */                                               \
  void multi_head_attention(In<T> X_q, const In<T>* X_kv, const HeadIn<T>* heads,               \
                            std::size_t n_heads, In<T> W_O, const MaskIn* mask, Out<T> O);       \
  /* varlen_attention.hpp: n_Q, n_K, n_V, n_lengths sequences (a difference is the       */    \
  /* ShapeError of attention_varlen); O and A: n_out entries, n_out == n_Q when the four */    \
  /* agree (else 0), O[n] T_q(n) x d_v(n), A[n] T_q(n) x T_v(n). */                              \
  void attention_varlen(const In<T>* Q, std::size_t n_Q, const In<T>* K, std::size_t n_K,      \
                         const In<T>* V, std::size_t n_V, const Index* key_lengths,              \
                         std::size_t n_lengths, bool causal, Out<T>* O, Out<T>* A,               \
                         std::size_t n_out);                                                     \
  /* positional_encoding.hpp: P is T_len x d (0 x 0 when a size is negative: the error). */     \
  void sinusoidal_positional_encoding(Index T_len, Index d, Out<T> P);
ATTN_RAW_DECLARE(float)
ATTN_RAW_DECLARE(double)
#undef ATTN_RAW_DECLARE

/// masks.hpp: M is T_q x T_v (0 x 0 when a size is negative: the error).
void causal_mask(Index T_q, Index T_v, CausalAlignment alignment, MaskOut M);
void padding_mask(Index T_q, Index T_v, Index key_length, MaskOut M);
/// masks.hpp: M has a's shape.
void combine_masks(MaskIn a, MaskIn b, MaskOut M);

}  // namespace attn::raw
