
#include <cmath>
#include <string>

#include "attn/errors.hpp"
#include "core.hpp"

namespace attn::core {

namespace {

/// The value behind a NonFiniteInputError of attention, for the re-raised error.
template <class T>
double offending_value(const NonFiniteInputError& e, const Matrix<T>& Q, const Matrix<T>& K,
                       const Matrix<T>& V) {
  if (e.matrix() == "Q") return static_cast<double>(Q(e.row(), e.col()));
  if (e.matrix() == "K") return static_cast<double>(K(e.row(), e.col()));
  if (e.matrix() == "V") return static_cast<double>(V(e.row(), e.col()));
  // "S": a logit that overflowed; evaluate that one entry again.
  const T s = Q.row(e.row()).dot(K.row(e.col())) / std::sqrt(static_cast<T>(Q.cols()));
  return static_cast<double>(s);
}

}  // namespace

template <class T>
std::vector<AttentionResult<T>> attention_varlen(const std::vector<Matrix<T>>& Q,
                                                 const std::vector<Matrix<T>>& K,
                                                 const std::vector<Matrix<T>>& V,
                                                 const std::vector<Index>& key_lengths,
                                                 bool causal) {
  constexpr const char* where = "attention_varlen";
  const std::size_t N = Q.size();
  if (K.size() != N || V.size() != N || key_lengths.size() != N)
    throw ShapeError(std::string(where) + ": batch sizes differ: Q has " + std::to_string(N) +
                     ", K " + std::to_string(K.size()) + ", V " + std::to_string(V.size()) +
                     " sequences and key_lengths " + std::to_string(key_lengths.size()) +
                     " entries");
  std::vector<AttentionResult<T>> out;
  out.reserve(N);
  for (std::size_t n = 0; n < N; ++n) {
    const std::string seq = std::string(where) + ": sequence " + std::to_string(n);
    try {
      const Index T_q = Q[n].rows(), T_v = K[n].rows();
      Mask mask = core::padding_mask(T_q, T_v, key_lengths[n]);
      if (causal) mask = core::combine_masks(mask, core::causal_mask(T_q, T_v, CausalAlignment::top_left));
      out.push_back(core::attention(Q[n], K[n], V[n], std::optional<Mask>(std::move(mask))));
    } catch (const ShapeError& e) {
      throw ShapeError(seq + ": " + e.what());
    } catch (const FullyMaskedRowError& e) {
      throw FullyMaskedRowError(e.row(), seq);
    } catch (const NonFiniteInputError& e) {
      throw NonFiniteInputError(e.matrix(), e.row(), e.col(), offending_value(e, Q[n], K[n], V[n]),
                                seq);
    }
  }
  return out;
}

template std::vector<AttentionResult<float>> attention_varlen(const std::vector<Matrix<float>>&,
                                                               const std::vector<Matrix<float>>&,
                                                               const std::vector<Matrix<float>>&,
                                                               const std::vector<Index>&, bool);
template std::vector<AttentionResult<double>> attention_varlen(const std::vector<Matrix<double>>&,
                                                                const std::vector<Matrix<double>>&,
                                                                const std::vector<Matrix<double>>&,
                                                                const std::vector<Index>&, bool);

}  // namespace attn::core
