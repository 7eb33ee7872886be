#pragma once
// Two library-level properties of multi-head attention (section 32.2.5) as
// plain functions of the implementation under test, for the multi-head
// mutants of the bug-injection catalogue (exercises/mutants/lib/mha_*.hpp):
// used by properties/tests/lib/mha_mutants_test.cpp and by `attnlab mutants`.
// They are the properties of mha_against_oracle.cpp (the 50-digit oracle
// under the a-priori bound) and mha_heads_independent.cpp (head i in columns
// [i d_v, (i+1) d_v) with W_O = I), with the same generators. Each must be
// called inside a RapidCheck property.

#include <functional>
#include <optional>

#include <rapidcheck.h>
#include <rapidcheck/detail/TestListenerAdapter.h>

#include "lib_prop_support.hpp"

namespace attn::libprop {

using Mha = std::function<Matrix<double>(const Matrix<double>&, const MultiHeadWeights<double>&,
                                         const std::optional<Mask>&)>;

/// Sizes of a multi-head case (d_k: the largest head's).
struct MhaSizes {
  Index h = 0, T = 0, d_model = 0, d_k = 0, d_v = 0, d_out = 0;
};

/// mha_against_oracle: true if `mha` agrees with the oracle within the bound.
/// On a failure `last` gets the case's sizes.
inline bool mha_against_oracle(const Mha& mha, MhaSizes& last) {
  const Index h = draw_size(4), T_len = draw_size(8), d_model = draw_size(8);
  const Index d_v = draw_size(4), d_out = draw_size(8);
  const Values v = draw_values(true);
  const int s = int(*rc::gen::inRange(0, 4));
  const DMatrix X = draw_matrix(T_len, d_model, v);
  ref::MultiHeadWeights w;
  Index d_k_max = 0;
  for (Index i = 0; i < h; ++i) {
    const Index d_k = draw_size(8);
    d_k_max = std::max(d_k_max, d_k);
    w.heads.push_back({draw_matrix(d_model, d_k, v, s), draw_matrix(d_model, d_k, v, s),
                       draw_matrix(d_model, d_v, v, s)});
  }
  w.W_O = draw_matrix(h * d_v, d_out, v, s);
  const std::optional<Mask> mask = draw_mask(T_len, T_len);
  const DMatrix O = mha(X, to_lib_weights<double>(w), mask);
  const auto exact = ref::exact_multi_head_attention(X, X, w, mask);
  const Comparison c =
      compare_to_exact(O, exact, multi_head_bound(X, w, mask, precision_of<double>()));
  if (!c.ok) last = {h, T_len, d_model, d_k_max, d_v, d_out};
  return c.ok;
}

/// mha_heads_in_order: with W_O = I, block i of the output is head i's own
/// attention(X W_Q^i, X W_K^i, X W_V^i, mask).O, bit for bit.
inline bool mha_heads_in_order(const Mha& mha, MhaSizes& last) {
  const Index h = draw_size(4), T_len = draw_size(8), d_model = draw_size(8);
  const Index d_v = draw_size(4);
  const Values v = draw_values(true);
  const DMatrix X = draw_matrix(T_len, d_model, v);
  MultiHeadWeights<double> w;
  Index d_k_max = 0;
  for (Index i = 0; i < h; ++i) {
    const Index d_k = draw_size(4);
    d_k_max = std::max(d_k_max, d_k);
    w.heads.push_back({draw_matrix(d_model, d_k, v), draw_matrix(d_model, d_k, v),
                       draw_matrix(d_model, d_v, v)});
  }
  w.W_O = DMatrix::Identity(h * d_v, h * d_v);
  const std::optional<Mask> mask = draw_mask(T_len, T_len);
  const DMatrix O = mha(X, w, mask);
  bool ok = O.rows() == T_len && O.cols() == h * d_v;
  for (Index i = 0; ok && i < h; ++i) {
    const auto& hw = w.heads[std::size_t(i)];
    const DMatrix O_i = attention_of_projections<double>(X, hw.W_Q, hw.W_K, hw.W_V, mask).O;
    ok = first_difference(DMatrix(O.middleCols(i * d_v, d_v)), O_i).empty();
  }
  if (!ok) last = {h, T_len, d_model, d_k_max, d_v, h * d_v};
  return ok;
}

using MhaProperty = bool (*)(const Mha&, MhaSizes&);

/// The two properties with their ids, in report order.
inline const std::vector<std::pair<std::string, MhaProperty>>& mha_mutant_properties() {
  static const std::vector<std::pair<std::string, MhaProperty>> list = {
      {"mha_against_oracle", &mha_against_oracle}, {"mha_heads_in_order", &mha_heads_in_order}};
  return list;
}

/// Runs `property` on `mha` with RapidCheck (`cases` cases, shrinking on) and
/// returns whether it failed; `shrunk` gets the last failing case's sizes,
/// the shrunk counterexample (RapidCheck only moves to smaller cases that
/// still fail). RapidCheck's state is per process: one run at a time.
inline bool mha_property_fails(MhaProperty property, const Mha& mha, std::uint64_t seed,
                               int cases, MhaSizes& shrunk) {
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = cases;
  rc::detail::TestMetadata metadata;
  metadata.id = "mha mutant";
  // A silent listener: no "reproduce" banner at the end of the process.
  rc::detail::TestListenerAdapter listener;
  const auto result = rc::detail::checkProperty(
      rc::detail::toProperty([&] { RC_ASSERT(property(mha, shrunk)); }), metadata, params,
      listener);
  return result.template is<rc::detail::FailureResult>();
}

}  // namespace attn::libprop
