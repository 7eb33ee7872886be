// (h) Which precision is named: public float32 and float16 code, written as
// plain loops after its source (not from the models), declared float64 as a
// submission that says nothing is. A lower precision is named only when no
// more precise type (below the declared one) reproduces the answers wherever
// it makes a claim, and a narrow type's +Inf bound never hides a second
// mistake in answers exact to a more precise type (misconceptions/README.md,
// "Two mistakes at once").
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "attn/mis/diagnose.hpp"
#include "attn/ref/number_format.hpp"
#include "subjects.hpp"

using namespace mis_test;
using attn::mis::Diagnosis;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double f32(double x) { return double(float(x)); }
double f16(double x) { return attn::ref::round_to_format(attn::ref::NumberFormat::float16, x); }

bool refuse_input(const Case& c) {
  if (c.K.cols() != c.Q.cols()) return true;
  for (const DMatrix* M : {&c.Q, &c.K, &c.V})
    for (Index i = 0; i < M->size(); ++i)
      if (!std::isfinite(M->data()[i])) return true;
  return false;
}

/// The logits q k^T / sqrt(d_k) in float32 (float32 products summed in float32).
double logit32(const Case& c, Index i, Index j) {
  double dot = 0;
  for (Index k = 0; k < c.Q.cols(); ++k) dot = f32(dot + f32(f32(c.Q(i, k)) * f32(c.K(j, k))));
  return f32(dot / f32(std::sqrt(double(c.Q.cols()))));
}

/// O's row i as A's row i times V, in float32.
void output_row(const Case& c, Index i, const DMatrix& A, DMatrix& O) {
  for (Index k = 0; k < c.V.cols(); ++k) {
    double o = 0;
    for (Index j = 0; j < c.K.rows(); ++j) o = f32(o + f32(A(i, j) * f32(c.V(j, k))));
    O(i, k) = o;
  }
}

/// gluon-nlp's masked_softmax (torch/attention_cell.py) in float32: forbidden
/// logits filled with -1e18, the max-subtracted softmax, then the weights
/// multiplied by the keep mask (no renormalisation). A fully forbidden row
/// is zeros; a row whose allowed logits all lie below -1e18 is zeros too.
Outcome gluon(const Case& c) {
  if (refuse_input(c)) return Outcome::make_refusal("ValueError", "bad input");
  const Index T_q = c.Q.rows(), T_v = c.K.rows();
  DMatrix A(T_q, T_v), O(T_q, c.V.cols());
  for (Index i = 0; i < T_q; ++i) {
    std::vector<double> s(std::size_t(T_v), 0.0);
    for (Index j = 0; j < T_v; ++j) s[std::size_t(j)] = c.mask && (*c.mask)(i, j) ? f32(-1e18) : logit32(c, i, j);
    softmax_row_and_output(c, i, s, f32, A, O);
    for (Index j = 0; j < T_v; ++j)
      if (c.mask && (*c.mask)(i, j)) A(i, j) = 0;
    output_row(c, i, A, O);
  }
  return Outcome::make_result(O, A);
}

/// Trax's DotProductAttention in float32: forbidden logits = -1e9, weights
/// exp(x - logsumexp(x)) with a max-shifted logsumexp. A fully forbidden row
/// is all ones (-1e9 + log n rounds to -1e9).
Outcome trax(const Case& c) {
  if (refuse_input(c)) return Outcome::make_refusal("ValueError", "bad input");
  const Index T_q = c.Q.rows(), T_v = c.K.rows();
  DMatrix A(T_q, T_v), O(T_q, c.V.cols());
  for (Index i = 0; i < T_q; ++i) {
    std::vector<double> s(std::size_t(T_v), 0.0);
    double m = -kInf;
    for (Index j = 0; j < T_v; ++j) {
      s[std::size_t(j)] = c.mask && (*c.mask)(i, j) ? f32(-1e9) : logit32(c, i, j);
      m = std::max(m, s[std::size_t(j)]);
    }
    if (!std::isfinite(m)) m = 0;
    double z = 0;
    for (Index j = 0; j < T_v; ++j) z = f32(z + f32(std::exp(f32(s[std::size_t(j)] - m))));
    const double lse = f32(f32(std::log(z)) + m);
    for (Index j = 0; j < T_v; ++j) A(i, j) = f32(std::exp(f32(s[std::size_t(j)] - lse)));
    output_row(c, i, A, O);
  }
  return Outcome::make_result(O, A);
}

/// Mistral's one_file_ref.py with float16 weights: q, k, v in float16, the
/// logits accumulated in float32 and stored in float16, scaled in float16, a
/// -inf mask added, the softmax in float32 (max-subtracted: NaN for a fully
/// forbidden row), the weights stored in float16, O accumulated in float32
/// and stored in float16.
Outcome mistral(const Case& c) {
  if (refuse_input(c)) return Outcome::make_refusal("ValueError", "bad input");
  const Index T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols();
  const double scale = f32(1.0 / std::sqrt(double(d_k)));
  DMatrix A(T_q, T_v), O(T_q, c.V.cols());
  for (Index i = 0; i < T_q; ++i) {
    std::vector<double> s(std::size_t(T_v), 0.0);
    double m = -kInf;
    for (Index j = 0; j < T_v; ++j) {
      double dot = 0;
      for (Index k = 0; k < d_k; ++k) dot = f32(dot + f32(f16(c.Q(i, k)) * f16(c.K(j, k))));
      double x = f16(f32(f16(dot) * scale));
      if (c.mask && (*c.mask)(i, j)) x = -kInf;
      s[std::size_t(j)] = x;
      m = std::max(m, x);
    }
    double z = 0;
    std::vector<double> e(std::size_t(T_v), 0.0);
    for (Index j = 0; j < T_v; ++j) {
      e[std::size_t(j)] = f32(std::exp(f32(s[std::size_t(j)] - m)));
      z = f32(z + e[std::size_t(j)]);
    }
    for (Index j = 0; j < T_v; ++j) A(i, j) = f16(f32(e[std::size_t(j)] / z));
    for (Index k = 0; k < c.V.cols(); ++k) {
      double o = 0;
      for (Index j = 0; j < T_v; ++j) o = f32(o + f32(A(i, j) * f16(c.V(j, k))));
      O(i, k) = f16(o);
    }
  }
  return Outcome::make_result(O, A);
}

/// burn's quiet_softmax (softmax1) in float32 with forbidden logits -1e4:
/// weights exp(x - m) / (sum exp(x - m) + exp(-m)). A fully forbidden row
/// is zeros (exp(1e4) overflows the denominator).
Outcome quiet(const Case& c) {
  if (refuse_input(c)) return Outcome::make_refusal("ValueError", "bad input");
  const Index T_q = c.Q.rows(), T_v = c.K.rows();
  DMatrix A(T_q, T_v), O(T_q, c.V.cols());
  for (Index i = 0; i < T_q; ++i) {
    std::vector<double> s(std::size_t(T_v), 0.0);
    double m = -kInf;
    for (Index j = 0; j < T_v; ++j) {
      s[std::size_t(j)] = c.mask && (*c.mask)(i, j) ? f32(-1e4) : logit32(c, i, j);
      m = std::max(m, s[std::size_t(j)]);
    }
    double z = 0;
    std::vector<double> e(std::size_t(T_v), 0.0);
    for (Index j = 0; j < T_v; ++j) {
      e[std::size_t(j)] = f32(std::exp(f32(s[std::size_t(j)] - m)));
      z = f32(z + e[std::size_t(j)]);
    }
    z = f32(z + f32(std::exp(f32(-m))));
    for (Index j = 0; j < T_v; ++j) A(i, j) = f32(e[std::size_t(j)] / z);
    output_row(c, i, A, O);
  }
  return Outcome::make_result(O, A);
}

Diagnosis diagnosed(Outcome (*code)(const Case&)) {
  FnSubject s("written", Operation::attention, code);
  return attn::mis::diagnose(s, small_case(Operation::attention), "oracle_agreement", {});
}

/// The types named for low_precision ("float32", ...), and every key named.
std::set<std::string> precisions(const Diagnosis& d) {
  std::set<std::string> p;
  for (const auto& fit : d.fits)
    if (fit.key == "low_precision")
      for (const auto& param : fit.params) p.insert(param.text);
  return p;
}
std::set<std::string> keys(const Diagnosis& d) {
  std::set<std::string> k;
  for (const auto& fit : d.fits) k.insert(fit.key);
  return k;
}
/// The texts of parameter `name` of the fits of `key`.
std::set<std::string> param_texts(const Diagnosis& d, const std::string& key, const std::string& name) {
  std::set<std::string> t;
  for (const auto& fit : d.fits)
    if (fit.key == key)
      for (const auto& param : fit.params)
        if (param.name == name) t.insert(param.text);
  return t;
}

}  // namespace

// bfloat16's a-priori bound is +Inf on a row of logits near 10 (the
// logits' own error, (d_k + 4) |q| |k| u, passes a relative 1/4): there it
// claims nothing, and float32 reproduces every answer it does claim. The
// rows whose allowed logits all lie below the fill (zeros here) fit no
// catalogued pair with float32, so nothing may be named, but never bfloat16
// or float16.
TEST_CASE("float32 code with a post-softmax zeroing is never named bfloat16", "[precision_choice]") {
  const Diagnosis d = diagnosed(gluon);
  INFO(attn::mis::to_json(d));
  const std::set<std::string> p = precisions(d);
  CHECK(p.count("bfloat16") == 0);
  CHECK(p.count("float16") == 0);
}

// Answers exact to float32's definition on the text's example, where a
// column-normalising softmax in bfloat16 is visibly off it: the bfloat16
// bound does not hide wrong_axis, nor any second mistake.
TEST_CASE("float32 code answering a fully forbidden row with ones names no axis and no bfloat16",
          "[precision_choice]") {
  const Diagnosis d = diagnosed(trax);
  INFO(attn::mis::to_json(d));
  CHECK(keys(d).count("wrong_axis") == 0);
  const std::set<std::string> p = precisions(d);
  CHECK(p.count("bfloat16") == 0);
  CHECK(p.count("float16") == 0);
}

// An added -1e9 is -inf in float16: a fill that the type rounds away is no
// finite fill, so the pair with the NaN empty row is the only one left.
TEST_CASE("float16 storage with a NaN empty row is named with the convention", "[precision_choice]") {
  const Diagnosis d = diagnosed(mistral);
  INFO(attn::mis::to_json(d));
  CHECK(d.verdict == Diagnosis::Verdict::combined);
  CHECK(keys(d) == std::set<std::string>{"low_precision", "fully_forbidden_answered"});
  CHECK(precisions(d) == std::set<std::string>{"float16"});
}

// gluon-nlp's masked_softmax fills -1e18, takes the softmax and multiplies
// it by the keep mask: the catalogue's fill_then_zeroed, in float32.
TEST_CASE("float32 code filling -1e18 and zeroing after the softmax is named with float32",
          "[precision_choice]") {
  const Diagnosis d = diagnosed(gluon);
  INFO(attn::mis::to_json(d));
  CHECK(d.verdict == Diagnosis::Verdict::combined);
  CHECK(keys(d) == std::set<std::string>{"fill_then_zeroed", "low_precision"});
  CHECK(precisions(d) == std::set<std::string>{"float32"});
  CHECK(param_texts(d, "fill_then_zeroed", "fill") == std::set<std::string>{"-1e18"});
}

// burn's quiet_softmax (softmax1): an extra exp(0 - max) in the denominator,
// zeros for a fully forbidden row, float32.
TEST_CASE("float32 softmax1 is named quiet_softmax with float32", "[precision_choice]") {
  const Diagnosis d = diagnosed(quiet);
  INFO(attn::mis::to_json(d));
  CHECK(d.verdict == Diagnosis::Verdict::combined);
  CHECK(keys(d) == std::set<std::string>{"quiet_softmax", "low_precision"});
  CHECK(precisions(d) == std::set<std::string>{"float32"});
}

namespace {

/// mlpack's attention softmax (softmax_impl.hpp at 0832bb7) in double: the
/// max and the sum taken over each column (the queries), the mask added as
/// -inf; a key forbidden for every query is a column of exp(-inf - (-inf)) =
/// NaN.
Outcome column_softmax(const Case& c) {
  if (refuse_input(c)) return Outcome::make_refusal("ValueError", "bad input");
  const Index T_q = c.Q.rows(), T_v = c.K.rows();
  DMatrix S(T_q, T_v), A(T_q, T_v), O = DMatrix::Zero(T_q, c.V.cols());
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) {
      double dot = 0;
      for (Index k = 0; k < c.Q.cols(); ++k) dot += c.Q(i, k) * c.K(j, k);
      S(i, j) = c.mask && (*c.mask)(i, j) ? -kInf : dot / std::sqrt(double(c.Q.cols()));
    }
  for (Index j = 0; j < T_v; ++j) {
    double m = -kInf, z = 0;
    for (Index i = 0; i < T_q; ++i) m = std::max(m, S(i, j));
    for (Index i = 0; i < T_q; ++i) z += std::exp(S(i, j) - m);
    for (Index i = 0; i < T_q; ++i) A(i, j) = std::exp(S(i, j) - m) / z;
  }
  for (Index i = 0; i < T_q; ++i)
    for (Index k = 0; k < c.V.cols(); ++k)
      for (Index j = 0; j < T_v; ++j) O(i, k) += A(i, j) * c.V(j, k);
  return Outcome::make_result(O, A);
}

}  // namespace

// Before: on a counterexample with a column of NaN (the one query forbids
// key 1), wrong_axis alone makes no determined claim (0/0 in the column is
// the code's choice), and the pair wrong_axis + low_precision (float32) was
// named for this double code: the pair's separation was checked against the
// definition only, never against wrong_axis in double, whose answers these
// are to the bit.
TEST_CASE("double code normalising columns is not named float32 beside wrong_axis",
          "[precision_choice]") {
  FnSubject s("column softmax, double", Operation::attention, column_softmax);
  Case c;
  c.op = Operation::attention;
  c.Q = DMatrix::Zero(1, 1);
  c.K = DMatrix::Zero(2, 1);
  c.V = DMatrix::Zero(2, 1);
  attn::Mask M(1, 2);
  M << false, true;
  c.mask = M;
  REQUIRE(std::isnan(s.run(c).A(0, 1)));
  const Diagnosis d = attn::mis::diagnose(s, c, "oracle_agreement", {});
  INFO(attn::mis::to_json(d));
  CHECK(precisions(d).empty());
}
