// The demonstrations behind `attnlab demo`. Every number shown is computed
// here by the library (lib/) and, where it matters, checked against the
// 50-digit oracle; the text's printed values are quoted beside them.
#include "commands/demo.hpp"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>

#include "attn/attn.hpp"
#include "attn/ref/oracle.hpp"
#include "attn/ref/textbook.hpp"
#include "commands/demo_sweep.hpp"

namespace attn::grader {

namespace {

using M = Matrix<double>;

// F4 and Lemma 2: masking after the softmax.
std::string row_text(const M& A, Index i, int precision = 4) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(precision) << "[";
  for (Index j = 0; j < A.cols(); ++j) os << (j ? ", " : "") << A(i, j);
  os << "]";
  return os.str();
}

std::string num(double x, int precision = 4) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(precision) << x;
  return os.str();
}

void demo_masking(std::ostream& out) {
  const ref::textbook::TwoToken ex;
  out << "Masking after the softmax (exercise F4) versus before it (Lemma 2, section 32.2.4)\n\n"
      << "The two-token example of 32.2.6: Q = [[1,0],[0,1]], K = [[1,1],[2,0]],\n"
      << "V = [[1,0,0],[0,1,0]], and the causal mask: query 0 may not see key 1.\n\n";
  const M S = scores<double>(ex.Q, ex.K);
  // Wrong (F4's code): softmax over every key, then zero the forbidden weight.
  M wrong = softmax_rows<double>(S);
  for (Index i = 0; i < wrong.rows(); ++i)
    for (Index j = 0; j < wrong.cols(); ++j)
      if (ex.causal(i, j)) wrong(i, j) = 0.0;
  const M right = masked_softmax<double>(S, ex.causal);
  const M O_wrong = wrong * ex.V, O_right = right * ex.V;

  const int w = 36;
  auto cell = [w](const std::string& text) {
    std::string t = text;
    if (t.size() < std::size_t(w)) t.resize(std::size_t(w), ' ');
    return t;
  };
  out << "         " << cell("mask AFTER the softmax (F4's bug)") << "mask BEFORE the softmax (Lemma 2)\n";
  out << "         " << cell("A = softmax(S); A[mask] = 0") << "S[mask] = -inf; A = softmax(S)\n";
  for (Index i = 0; i < S.rows(); ++i) {
    out << "  row " << i << ": "
        << cell(row_text(wrong, i) + "  sum = " + num(wrong.row(i).sum()))
        << row_text(right, i) << "  sum = " << num(right.row(i).sum()) << "\n";
  }
  out << "  O[0]:  " << cell(row_text(O_wrong, 0)) << row_text(O_right, 0) << "\n\n";

  const double s00 = S(0, 0), s01 = S(0, 1);
  const double e00 = std::exp(s00), e01 = std::exp(s01);
  const auto exact = ref::exact_attention(ex.Q, ex.K, ex.V, ex.causal);
  out << "Why row 0 no longer sums to 1: its logits are S[0] = [1/sqrt2, 2/sqrt2] = ["
      << num(s00) << ", " << num(s01) << "].\n"
      << "  After:  the softmax divides by exp(" << num(s00) << ") + exp(" << num(s01) << ") = "
      << num(e00) << " + " << num(e01) << " = " << num(e00 + e01) << ",\n"
      << "          forbidden key 1 included; zeroing its weight afterwards removes its share\n"
      << "          but not its term in the denominator: A[0,0] = " << num(e00) << " / "
      << num(e00 + e01) << " = " << num(wrong(0, 0)) << ", and the row\n"
      << "          sums to " << num(wrong.row(0).sum()) << " (the text's 0.3302). O's row 0 is "
      << num(wrong.row(0).sum()) << " v_0, a shrunken vector,\n"
      << "          not a convex combination of the allowed values (F1 fails).\n"
      << "  Before: S[0,1] = -inf gives exp(-inf) = 0 inside the sum, so the denominator is\n"
      << "          " << num(e00) << " alone, A[0,0] = 1, the forbidden weight is exactly 0, and every row\n"
      << "          sums to 1 (Lemma 2; 50-digit oracle: A[0] = ["
      << num(static_cast<double>(exact.A(0, 0))) << ", " << num(static_cast<double>(exact.A(0, 1)))
      << "]).\n"
      << "Row 1 has no forbidden key, so both agree there: the bug shows only in masked rows,\n"
      << "which is why a test without a mask (or with the unmasked row only) misses it.\n";
}

// Section 14.3: why divide by sqrt(d_k).
void demo_scaling(std::ostream& out) {
  const ref::textbook::Scale143 ex;
  out << std::fixed << std::setprecision(4);
  out << "The 1/sqrt(d_k) scale (section 14.3; Lemma 1, section 32.2.3)\n\n"
      << "Query [1, 1] against keys [1,0], [0,1], [1,1] (d_k = 2):\n";
  const M dots = ex.Q * ex.K.transpose();
  const M S = scores<double>(ex.Q, ex.K);
  out << "  dot products      : [" << dots(0, 0) << ", " << dots(0, 1) << ", " << dots(0, 2) << "]\n"
      << "  scaled by 1/sqrt2 : [" << S(0, 0) << ", " << S(0, 1) << ", " << S(0, 2) << "]\n\n";
  for (double factor : {1.0, 4.0, 16.0}) {
    const M Qf = ex.Q * factor;
    const M A_scaled = softmax_rows<double>(scores<double>(Qf, ex.K));
    const M A_plain = softmax_rows<double>(M(Qf * ex.K.transpose()));
    out << "  Q x " << std::setw(2) << int(factor) << ": scaled weights [" << A_scaled(0, 0) << ", "
        << A_scaled(0, 1) << ", " << A_scaled(0, 2) << "],  unscaled [" << A_plain(0, 0) << ", "
        << A_plain(0, 1) << ", " << A_plain(0, 2) << "]\n";
  }
  out << "\nThe order of the scores is the same either way, but without the scale the\n"
      << "softmax concentrates sooner on the largest score as the entries grow. With\n"
      << "independent, zero-mean, unit-variance entries a d_k-term dot product has variance\n"
      << "d_k; dividing by sqrt(d_k) brings it back to about 1. That is a heuristic about\n"
      << "an assumed distribution, not a theorem about trained Q and K (32.2.3).\n"
      << "With Q = 0 every score is 0 and the weights are uniform, scaled or not.\n";
  out << std::defaultfloat;
}

// 32.2.4: the max shift.
void demo_shift(std::ostream& out) {
  out << "Subtracting the row maximum (shift invariance, section 32.2.4)\n\n";
  M S(1, 3);
  S << 1000.0, 999.0, 990.0;
  out << "  logits S = [1000, 999, 990]\n";
  const double e0 = std::exp(1000.0);
  const double ratio = e0 / (e0 + e0);
  out << "  unshifted: exp(1000) = " << e0 << " in double, so exp(s)/sum exp = inf/inf = "
      << (std::isnan(ratio) ? std::string("NaN") : std::to_string(ratio)) << "\n";
  const M A = softmax_rows<double>(S);
  out << std::setprecision(6) << "  shifted by the max 1000: exp([0, -1, -10]) / sum = [" << A(0, 0)
      << ", " << A(0, 1) << ", " << A(0, 2) << "]\n\n"
      << "softmax(S + c) = softmax(S) for any constant c per row, so subtracting the row\n"
      << "maximum changes nothing mathematically and keeps every exponent <= 0.\n\n";
  // With a mask: which maximum. A -inf entry is harmless (max(x, -inf) = x);
  // the hazard is a forbidden key's large finite logit winning the maximum.
  const double allowed = 0.0, forbidden = 2000.0;
  const double wrong_max = std::max(allowed, forbidden);
  const double kept = std::exp(allowed - wrong_max);  // underflows to 0
  const double renormalised = kept / (kept + 0.0);    // forbidden weight zeroed: 0/0
  out << "  with a mask: S = [0, 2000], key 1 forbidden\n"
      << "  maximum over the allowed keys only: 0, so exp(0 - 0) / 1 = 1 for key 0 (right)\n"
      << "  maximum over every key: 2000 (the forbidden logit wins), exp(0 - 2000) = " << kept
      << ",\n  and zeroing key 1 then renormalising gives 0/0 = "
      << (std::isnan(renormalised) ? std::string("NaN") : std::to_string(renormalised)) << "\n\n"
      << "A -inf entry in the maximum is harmless: max(x, -inf) = x, and exp(-inf - m) = 0 for\n"
      << "a finite m. The hazard is a forbidden key's large finite logit winning the maximum:\n"
      << "take the maximum after setting forbidden logits to -inf (F2). A row whose every key\n"
      << "is forbidden has no finite maximum (-inf - (-inf) = NaN) and is an error (attnlab\n"
      << "raises FullyMaskedRowError).\n";
}

// 32.2.10: a weight is not a contribution.
void demo_weights(std::ostream& out) {
  const ref::textbook::Counterexample3210 ex;
  M S(1, 2);
  S << 0.0, std::log(9.0);
  const M A = softmax_rows<double>(S);
  const M O = A * ex.V;
  out << std::setprecision(4) << std::fixed
      << "A weight is not a contribution (section 32.2.10)\n\n"
      << "  weights A = [" << A(0, 0) << ", " << A(0, 1) << "], values v1 = [10, 0], v2 = [-1, 0]\n"
      << "  o = 0.1 v1 + 0.9 v2 = [" << O(0, 0) << ", " << O(0, 1) << "]\n\n"
      << "Key 2 gets 9 times the weight of key 1, yet v1's contribution (1.0) is larger\n"
      << "than v2's (-0.9) and the two nearly cancel. Reading A as an explanation of O\n"
      << "ignores the values; a causal claim needs an intervention, not a weight.\n"
      << std::defaultfloat;
}

// Section 14.3 over d_k 1..1024 (demo_sweep.hpp), with the default inputs.
void demo_scaling_sweep(std::ostream& out) { write_sweep(out, scaling_sweep(SweepInputs{}), "text"); }

}  // namespace

const std::vector<Demo>& demos() {
  static const std::vector<Demo> list = {
      {"masking", "why masking after the softmax breaks the weights (F4, Lemma 2)", demo_masking},
      {"scaling", "what the 1/sqrt(d_k) scale does to the weights (14.3, Lemma 1)", demo_scaling},
      {kSweepDemo, "entropy and largest weight over d_k = 1..1024, scaled and unscaled (14.3)",
       demo_scaling_sweep},
      {"shift", "why the stable softmax subtracts the row maximum (32.2.4, F2)", demo_shift},
      {"weights", "a large weight is not a large contribution (32.2.10)", demo_weights},
  };
  return list;
}

void list_demos(std::ostream& out) {
  out << "Demonstrations (attnlab demo NAME):\n";
  for (const Demo& d : demos()) out << "  " << std::left << std::setw(15) << d.name << d.summary << "\n";
  out << std::right;
}

int run_demo(const std::string& name, std::ostream& out) {
  for (const Demo& d : demos())
    if (d.name == name) {
      d.run(out);
      return 0;
    }
  out << "unknown demonstration '" << name << "'\n";
  list_demos(out);
  return 2;
}

}  // namespace attn::grader
