#pragma once
// The library's operations on its own Eigen objects (private to lib/).
//
// libattn is compiled with Eigen's namespace renamed (-DEigen=attn_eigen_lib,
// lib/CMakeLists.txt), so Matrix<T> here is not the caller's Matrix<T>. The
// caller reaches these functions only through attn::raw (abi.hpp, abi.cpp),
// whose inline Eigen wrappers are the public headers. Each function has the
// contract, shapes and errors of the public function of the same name
// (include/attn/*.hpp). Their result types (AttentionResult<T>, ...) are
// the public templates over the library's own matrices, types distinct from
// the caller's (ctest lib/library_symbols_no_eigen).
#include <optional>
#include <vector>

#include "attn/attention.hpp"
#include "attn/attention_backward.hpp"
#include "attn/attention_options.hpp"
#include "attn/attention_tiled.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/masks.hpp"
#include "attn/matrix.hpp"

namespace attn::core {

template <class T>
Matrix<T> scores(const Matrix<T>& Q, const Matrix<T>& K);
template <class T>
Matrix<T> masked_softmax(const Matrix<T>& S, const Mask& mask);
template <class T>
Matrix<T> softmax_rows(const Matrix<T>& S);
template <class T>
AttentionResult<T> attention(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                             const std::optional<Mask>& mask);
/// The fast path reads the caller's Q, K and V in place (no copy: the
/// memory of attention_tiled.hpp).
template <class T>
TiledAttentionResult<T> attention_tiled(const Eigen::Map<const Matrix<T>>& Q,
                                        const Eigen::Map<const Matrix<T>>& K,
                                        const Eigen::Map<const Matrix<T>>& V,
                                        const std::optional<Mask>& mask, TileSizes tiles);
template <class T>
TiledAttentionResult<T> attention_tiled(const Eigen::Map<const Matrix<T>>& Q,
                                        const Eigen::Map<const Matrix<T>>& K,
                                        const Eigen::Map<const Matrix<T>>& V,
                                        const std::optional<Mask>& mask,
                                        const AttentionOptions& options, TileSizes tiles);
template <class T>
AttentionGradients<T> attention_backward(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                                         const Matrix<T>& dO, const std::optional<Mask>& mask,
                                         const AttentionOptions& options);
template <class T>
AttentionGradients<T> attention_backward_tiled(const Matrix<T>& Q, const Matrix<T>& K,
                                               const Matrix<T>& V, const Matrix<T>& O,
                                               const Vector<T>& logsumexp, const Matrix<T>& dO,
                                               const std::optional<Mask>& mask,
                                               const AttentionOptions& options, TileSizes tiles);
template <class T>
Matrix<T> multi_head_attention(const Matrix<T>& X, const MultiHeadWeights<T>& w,
                               const std::optional<Mask>& mask);
template <class T>
Matrix<T> multi_head_attention(const Matrix<T>& X_q, const Matrix<T>& X_kv,
                               const MultiHeadWeights<T>& w, const std::optional<Mask>& mask);
template <class T>
std::vector<AttentionResult<T>> attention_varlen(const std::vector<Matrix<T>>& Q,
                                                 const std::vector<Matrix<T>>& K,
                                                 const std::vector<Matrix<T>>& V,
                                                 const std::vector<Index>& key_lengths,
                                                 bool causal);
template <class T>
Matrix<T> sinusoidal_positional_encoding(Index T_len, Index d);

Mask causal_mask(Index T_q, Index T_v, CausalAlignment alignment);
Mask padding_mask(Index T_q, Index T_v, Index key_length);
Mask combine_masks(const Mask& a, const Mask& b);

}  // namespace attn::core
