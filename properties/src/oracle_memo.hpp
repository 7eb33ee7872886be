#pragma once
// A memo of the oracle's values (reference/) within one process: the
// properties of one run draw their generated cases from the same seed, so
// each case reaches the oracle once per property that judges it (and again
// in a metamorphic property's related case, in a shrink's replay, in a
// second subject graded in the same process). The oracle is a function of
// its arguments' values alone, so its answer to a case seen before is
// looked up instead of computed again in 50 digits; nothing it returns
// differs from a fresh computation (tests/oracle_memo_test.cpp).
//
// The key is every byte the call reads: which oracle function, then each
// argument's shape and its exact bytes (a double's 8 bytes, so -0.0 and 0.0
// and two NaN payloads are told apart; a mask entry one byte; an absent mask
// or scale its own mark). A refusal (OracleRefusal) is not remembered: it is
// thrown again by a fresh call. Thread-safe. The memo keeps at most
// kOracleMemoBytes of keys and values, dropping the least recently used.
//
// Private to properties/ (it includes the oracle's headers).

#include <cstddef>
#include <optional>
#include <string>

#include "attn/ref/oracle.hpp"
#include "attn/ref/oracle_backward.hpp"

namespace attn::prop::detail {

/// The memo's size limit: key bytes plus sizeof(Real) per Real held.
inline constexpr std::size_t kOracleMemoBytes = std::size_t{64} << 20;

/// The bytes that decide one oracle call (see the file's comment). `what`
/// names the function ("exact_attention"); a key of one function never
/// equals one of another.
class OracleKey {
 public:
  explicit OracleKey(const char* what);
  OracleKey& add(const ref::DMatrix& M);
  OracleKey& add(const std::optional<ref::BoolMatrix>& mask);
  OracleKey& add(std::optional<double> scale);
  const std::string& bytes() const { return bytes_; }

 private:
  void add_shape(std::ptrdiff_t rows, std::ptrdiff_t cols);
  std::string bytes_;
};

/// ref::exact_attention (Q: T_q x d_k, K: T_v x d_k, V: T_v x d_v, mask:
/// T_q x T_v, true = forbidden; scale as there), remembered. Throws
/// ref::OracleRefusal as ref::exact_attention does.
ref::ExactAttention memo_exact_attention(const ref::DMatrix& Q, const ref::DMatrix& K,
                                         const ref::DMatrix& V,
                                         const std::optional<ref::BoolMatrix>& mask,
                                         std::optional<double> scale = std::nullopt);
/// ref::extended_attention (the oracle's second tier), remembered.
ref::ExactAttention memo_extended_attention(const ref::DMatrix& Q, const ref::DMatrix& K,
                                            const ref::DMatrix& V,
                                            const std::optional<ref::BoolMatrix>& mask);
/// ref::exact_masked_softmax (S: T_q x T_v logits), remembered.
ref::ExactSoftmax memo_exact_masked_softmax(const ref::DMatrix& S,
                                            const std::optional<ref::BoolMatrix>& mask);
/// ref::extended_masked_softmax, remembered.
ref::ExactSoftmax memo_extended_masked_softmax(const ref::DMatrix& S,
                                               const std::optional<ref::BoolMatrix>& mask);
/// ref::exact_attention_backward (dO: T_q x d_v), remembered.
ref::ExactGradients memo_exact_attention_backward(const ref::DMatrix& Q, const ref::DMatrix& K,
                                                  const ref::DMatrix& V, const ref::DMatrix& dO,
                                                  const std::optional<ref::BoolMatrix>& mask);

/// Calls answered from the memo and calls computed, since the process
/// started (or the last clear_oracle_memo).
struct OracleMemoStats {
  long hits = 0;
  long misses = 0;
};
OracleMemoStats oracle_memo_stats();
/// Forgets every value and zeroes the counts.
void clear_oracle_memo();

}  // namespace attn::prop::detail
