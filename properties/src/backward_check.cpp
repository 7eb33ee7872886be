#include "backward_check.hpp"

#include <cmath>
#include <limits>

#include "attn/prop/bound_stats.hpp"
#include "oracle_memo.hpp"

namespace attn::prop::detail {

namespace {

std::string dims(Index rows, Index cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

}  // namespace

std::optional<Failure> require_gradients(const Outcome& o, const Case& c) {
  Failure f;
  f.outcome = o;
  if (o.kind == Outcome::Kind::refusal) {
    f.summary = "refused valid input: " + o.error_type + ": " + o.message;
    return f;
  }
  if (o.kind == Outcome::Kind::fault) {
    f.summary = o.message;
    return f;
  }
  const Index T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols(), d_v = c.V.cols();
  const DMatrix* got[3] = {&o.dQ, &o.dK, &o.dV};
  const Index rows[3] = {T_q, T_v, T_v}, cols[3] = {d_k, d_k, d_v};
  const char* want[3] = {"T_q x d_k", "T_v x d_k", "T_v x d_v"};
  for (int k = 0; k < 3; ++k)
    if (got[k]->rows() != rows[k] || got[k]->cols() != cols[k]) {
      f.summary = std::string(kGradientNames[k]) + " is " + dims(got[k]->rows(), got[k]->cols()) +
                  " but must be " + want[k] + " = " + dims(rows[k], cols[k]);
      return f;
    }
  return std::nullopt;
}

ExpectedGradients expected_gradients(const Case& c, const Precision& p) {
  ExpectedGradients e{memo_exact_attention_backward(c.Q, c.K, c.V, c.dO, c.mask), {}};
  ref::PrecisionModel model = precision_model(p);
  if (c.tile_q > 0 && c.tile_k > 0)
    model.online_rescales = int((c.K.rows() + c.tile_k - 1) / c.tile_k) - 1;
  e.bound = ref::attention_backward_error_bound(c.Q, c.K, c.V, c.dO, e.exact, model);
  return e;
}

std::vector<Index> keys_forbidden_to_all(const Case& c) {
  std::vector<Index> keys;
  if (!c.mask || c.mask->rows() == 0) return keys;
  for (Index j = 0; j < c.mask->cols(); ++j)
    if (c.mask->col(j).all()) keys.push_back(j);
  return keys;
}

const DMatrix& gradient(const Outcome& o, int which) {
  return which == 0 ? o.dQ : which == 1 ? o.dK : o.dV;
}
const ref::RealMatrix& gradient(const ref::ExactGradients& x, int which) {
  return which == 0 ? x.dQ : which == 1 ? x.dK : x.dV;
}
const DMatrix& gradient(const ref::AttentionBackwardBound& b, int which) {
  return which == 0 ? b.dQ : which == 1 ? b.dK : b.dV;
}

std::optional<Failure> compare_gradients(const Case& c, const Outcome& o,
                                         const ExpectedGradients& e, const RatioRecorder& record) {
  const std::vector<Index> zero_keys = keys_forbidden_to_all(c);
  std::optional<Failure> worst;
  double worst_ratio = -1;
  for (int k = 0; k < 3; ++k) {
    DMatrix actual = gradient(o, k);
    // The rows of keys no query sees: backward_exact_zeros' to judge.
    if (k > 0)
      for (Index j : zero_keys) actual.row(j).setZero();
    double ratio = 0;
    auto f = compare_with_bound(kGradientNames[k], actual, gradient(e.exact, k),
                                gradient(e.bound, k), &ratio);
    if (record) record(kGradientNames[k], ratio, actual.size());
    if (f && ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = f;
    }
  }
  // A key's row (dK, dV) is not a query row to mark in Q.
  if (worst && worst->worst && worst->worst->matrix != "dQ") worst->marked_row = -1;
  return with_outcome(worst, o);
}

std::optional<Failure> compare_related_gradients(const Outcome& original, const Outcome& related,
                                                 const std::vector<Index>& q_rows,
                                                 const std::vector<Index>& k_rows,
                                                 const ExpectedGradients& e_original,
                                                 const ExpectedGradients& e_related,
                                                 const RatioRecorder& record) {
  for (int k = 0; k < 3; ++k) {
    const EntryMap m{k == 0 ? q_rows : k_rows, {}};
    double ratio = 0;
    auto f = compare_related(kGradientNames[k], gradient(original, k), gradient(related, k), m,
                             gradient(e_original.exact, k), gradient(e_related.exact, k),
                             gradient(e_original.bound, k), gradient(e_related.bound, k), nullptr,
                             &ratio);
    if (record) record(kGradientNames[k], ratio, gradient(related, k).size());
    if (f) {
      if (k > 0) f->marked_row = -1;  // a key's row, not a query's
      return f;
    }
  }
  return std::nullopt;
}

std::optional<Failure> check_related_gradients(Subject& s, const Case& original, const Case& related,
                                               const std::vector<Index>& q_rows,
                                               const std::vector<Index>& k_rows,
                                               const std::string& relation) {
  if (outside_shapes(original) || outside_shapes(related)) return std::nullopt;
  const Outcome o1 = s.run(original);
  if (auto f = require_gradients(o1, original)) {
    f->answered = original;
    return f;
  }
  const Outcome o2 = s.run(related);
  if (auto f = require_gradients(o2, related)) {
    f->summary = "on the transformed case (" + relation + "): " + f->summary;
    f->answered = related;
    return f;
  }
  const ExpectedGradients e1 = expected_gradients(original, s.precision());
  const ExpectedGradients e2 = expected_gradients(related, s.precision());
  auto record = [&](const char* name, double ratio, Index entries) {
    record_backward_ratio(s, related, std::string(name) + " against the original's (" + relation + ")",
                          ratio, entries);
  };
  if (auto f = compare_related_gradients(o1, o2, q_rows, k_rows, e1, e2, record)) {
    f->summary = relation + ": " + f->summary;
    f->outcome = o2;
    f->answered = related;
    return f;
  }
  return std::nullopt;
}

void record_backward_ratio(const Subject& s, const Case& c, const std::string& what, double ratio,
                           Index entries) {
  std::string where = what + " of attention_backward in " + s.precision().name;
  for (const auto& t : c.tags) where += "; " + t;
  record_bound_ratio(ratio, entries, where);
}

}  // namespace attn::prop::detail
