// The demonstrations' panels (see demo_data.hpp); their formats: demo_formats.cpp.
#include "commands/demo_data.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "attn/attn.hpp"
#include "attn/ref/textbook.hpp"

namespace attn::grader {
namespace {

using M = Matrix<double>;

M random_matrix(Index rows, Index cols, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  M X(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) X(i, j) = normal(rng);
  return X;
}

Mask no_mask(Index rows, Index cols) {
  Mask m(rows, cols);
  m.setConstant(false);
  return m;
}

Mask make_mask(const std::string& kind, Index T) {
  if (kind == "causal") return causal_mask(T, T);
  if (kind == "padding") return padding_mask(T, T, std::max<Index>(1, T - T / 3));
  if (kind == "none") return no_mask(T, T);
  throw std::invalid_argument("--mask must be causal, padding or none, got '" + kind + "'");
}

/// The softmax from its definition, exp(s_ij) / sum_allowed exp(s_ij'), with
/// no shift: NaN (inf / inf) once an exponent overflows; 0 where forbidden.
M unshifted_softmax(const M& S, const Mask& mask) {
  M A(S.rows(), S.cols());
  for (Index i = 0; i < S.rows(); ++i) {
    double z = 0;
    for (Index j = 0; j < S.cols(); ++j)
      if (!mask(i, j)) z += std::exp(S(i, j));
    for (Index j = 0; j < S.cols(); ++j) A(i, j) = mask(i, j) ? 0.0 : std::exp(S(i, j)) / z;
  }
  return A;
}

/// Each key's share of the output row: A_ij ||v_j|| / sum_j' A_ij' ||v_j'||.
M contributions(const M& A, const M& V) {
  M C(A.rows(), A.cols());
  for (Index i = 0; i < A.rows(); ++i) {
    double total = 0;
    for (Index j = 0; j < A.cols(); ++j) total += A(i, j) * V.row(j).norm();
    for (Index j = 0; j < A.cols(); ++j) C(i, j) = total > 0 ? A(i, j) * V.row(j).norm() / total : 0.0;
  }
  return C;
}

void masking_panels(DemoData& d, const M& S, const Mask& mask) {
  M after = softmax_rows<double>(S);
  for (Index i = 0; i < S.rows(); ++i)
    for (Index j = 0; j < S.cols(); ++j)
      if (mask(i, j)) after(i, j) = 0.0;
  d.panels.push_back({"correct", "correct: mask before the softmax (Lemma 2)", masked_softmax<double>(S, mask), mask});
  d.panels.push_back({"post_softmax", "F4's bug: mask after the softmax", after, mask});
  d.heading = "Masking before vs after the softmax";
  d.note =
      "Masked after the softmax, a row with a forbidden key sums to less than 1 (the\n"
      "forbidden keys kept their share of the denominator); masked before (logit -inf),\n"
      "every row sums to 1 and forbidden weights are exactly 0.\n";
}

void scaling_panels(DemoData& d, const M& Q, const M& K) {
  d.panels.push_back({"scaled", "scaled: softmax(QK^T / sqrt(d_k))", softmax_rows<double>(scores<double>(Q, K)), Mask()});
  d.panels.push_back({"unscaled", "unscaled: softmax(QK^T)", softmax_rows<double>(M(Q * K.transpose())), Mask()});
  d.heading = "Scaled vs unscaled logits";
  d.note =
      "Unscaled, the logits grow with the queries' length and d_k, and each row's softmax\n"
      "puts almost all its weight on one key (low entropy, largest weight near 1) and its\n"
      "gradient all but vanishes; dividing by sqrt(d_k) brings the logits of N(0, 1) entries\n"
      "back to variance 1 (section 14.3; Lemma 1, section 32.2.3).\n";
}

void shift_panels(DemoData& d, const M& S, const Mask& mask) {
  d.panels.push_back({"definition", "exp(s) / sum exp(s), no shift", unshifted_softmax(S, mask), mask});
  d.panels.push_back({"stable", "stable: row maximum subtracted first", masked_softmax<double>(S, mask), mask});
  d.heading = "Subtracting the row maximum";
  d.note =
      "Without the shift exp overflows to inf and every weight is inf / inf = NaN; the\n"
      "softmax is unchanged by a constant per row (softmax(S + c) = softmax(S)), so\n"
      "subtracting the row maximum over the allowed keys keeps every exponent <= 0\n"
      "(section 32.2.4, F2).\n";
}

void weights_panels(DemoData& d, const M& A, const M& V, const Mask& mask) {
  d.panels.push_back({"weights", "weights A", A, mask});
  d.panels.push_back({"contributions", "share of the output: A_ij ||v_j|| / sum", contributions(A, V), mask});
  d.heading = "A weight is not a contribution";
  d.note =
      "A key's share of the output row depends on its value's length as well as its\n"
      "weight: a large weight on a short value contributes less than a small weight on a\n"
      "long one, and values of opposite sign cancel. Reading A as an explanation of O\n"
      "ignores the values; a causal claim needs an intervention (section 32.2.10).\n";
}

void text_example(DemoData& d) {
  const auto& name = d.name;
  if (name == "masking") {
    const ref::textbook::TwoToken ex;
    masking_panels(d, scores<double>(ex.Q, ex.K), ex.causal);
    d.inputs_line = "the two-token example of 32.2.6: Q = [[1,0],[0,1]], K = [[1,1],[2,0]], causal mask";
  } else if (name == "scaling") {
    const ref::textbook::Scale143 ex;
    M Q(3, ex.Q.cols());
    Q << ex.Q * 1.0, ex.Q * 4.0, ex.Q * 16.0;
    scaling_panels(d, Q, ex.K);
    d.inputs_line = "section 14.3: queries [1,1] x 1, 4, 16 (rows) against keys [1,0], [0,1], [1,1]";
  } else if (name == "shift") {
    M S(1, 3);
    S << 1000.0, 999.0, 990.0;
    shift_panels(d, S, no_mask(1, 3));
    d.inputs_line = "section 32.2.4: logits S = [1000, 999, 990]";
  } else {
    const ref::textbook::Counterexample3210 ex;
    weights_panels(d, ex.A, ex.V, no_mask(1, 2));
    d.inputs_line = "section 32.2.10: A = [0.1, 0.9], v1 = [10, 0], v2 = [-1, 0]";
  }
}

}  // namespace

const std::vector<std::string>& panel_demos() {
  static const std::vector<std::string> names = {"masking", "scaling", "shift", "weights"};
  return names;
}

bool has_forbidden(const DemoData& d) {
  for (const auto& p : d.panels)
    if (p.forbidden.size() && p.forbidden.any()) return true;
  return false;
}

void demo_random_qk(Index T, Index d_k, std::uint64_t seed, Matrix<double>& Q, Matrix<double>& K) {
  std::mt19937_64 rng(seed);
  Q = random_matrix(T, d_k, rng);
  K = random_matrix(T, d_k, rng);
}

double mean_row_entropy(const M& A) {
  double total = 0;
  for (Index i = 0; i < A.rows(); ++i)
    if (!A.row(i).allFinite() || std::fabs(A.row(i).sum() - 1.0) > 1e-9) return std::nan("");
  for (Index i = 0; i < A.rows(); ++i)
    for (Index j = 0; j < A.cols(); ++j)
      if (A(i, j) > 0) total -= A(i, j) * std::log(A(i, j));
  return A.rows() ? total / static_cast<double>(A.rows()) : 0.0;
}

double uniform_entropy(const Mask& forbidden, const M& A) {
  if (A.rows() == 0) return 0.0;
  double total = 0;
  for (Index i = 0; i < A.rows(); ++i) {
    Index allowed = A.cols();
    if (forbidden.size())
      for (Index j = 0; j < A.cols(); ++j) allowed -= forbidden(i, j) ? 1 : 0;
    if (allowed > 0) total += std::log(static_cast<double>(allowed));
  }
  return total / static_cast<double>(A.rows());
}

double mean_largest_weight(const M& A) {
  if (!A.allFinite()) return std::nan("");
  double total = 0;
  for (Index i = 0; i < A.rows(); ++i) total += A.row(i).maxCoeff();
  return A.rows() ? total / static_cast<double>(A.rows()) : 0.0;
}

DemoData demo_data(const std::string& name, const DemoInputs& in) {
  const auto& names = panel_demos();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw std::invalid_argument("the demonstration '" + name +
                                "' takes no inputs or formats (masking, scaling, shift and weights do)");
  if (in.size < 1 || in.size > 64) throw std::invalid_argument("--size must be from 1 to 64");
  if (in.d_k < 1 || in.d_k > 4096) throw std::invalid_argument("--d-k must be from 1 to 4096");
  DemoData d;
  d.name = name;
  d.inputs = in;
  if (in.text_example) {
    text_example(d);
  } else {
    const Index T = in.size;
    M Q, K;
    demo_random_qk(T, in.d_k, in.seed, Q, K);
    const Mask mask = make_mask(in.mask, T);
    const bool masked = name != "scaling";
    d.inputs_line = "T = " + std::to_string(in.size) + ", d_k = " + std::to_string(in.d_k) +
                    (!masked ? std::string() : in.mask == "none" ? std::string(", no mask") : ", " + in.mask + " mask") +
                    ", seed " +
                    std::to_string(in.seed) + "; Q, K entries N(0, 1)";
    if (name == "masking") {
      masking_panels(d, scores<double>(Q, K), mask);
    } else if (name == "scaling") {
      scaling_panels(d, Q, K);
    } else if (name == "shift") {
      shift_panels(d, M(scores<double>(Q, K).array() + kShiftOffset), mask);
      d.inputs_line += "; logits offset by +1000";
    } else {
      // Values of unequal lengths: row j of V is e^{z_j} times an N(0, 1) vector.
      std::mt19937_64 rng(in.seed ^ 0x9e3779b97f4a7c15ULL);
      M V = random_matrix(T, in.d_k, rng);
      std::normal_distribution<double> normal(0.0, 1.0);
      for (Index j = 0; j < T; ++j) V.row(j) *= std::exp(normal(rng));
      weights_panels(d, masked_softmax<double>(scores<double>(Q, K), mask), V, mask);
      d.inputs_line += "; row j of V: e^z N(0, 1), z N(0, 1)";
    }
  }
  for (const auto& p : d.panels) {
    d.entropy.push_back(mean_row_entropy(p.A));
    d.largest.push_back(mean_largest_weight(p.A));
    d.uniform.push_back(uniform_entropy(p.forbidden, p.A));
  }
  return d;
}

}  // namespace attn::grader
