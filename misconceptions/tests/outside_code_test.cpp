// (d) Code written elsewhere, in its own style: named right or not named.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attn/mis/diagnose.hpp"
#include "subjects.hpp"

using namespace mis_test;
using attn::mis::Diagnosis;

namespace {

bool named_only(const Diagnosis& d, const std::string& key) {
  if (d.verdict == Diagnosis::Verdict::misconception) return d.fits.size() == 1 && d.fits[0].key == key;
  return d.fits.empty();  // not named at all is acceptable; a wrong name is not
}

// A NumPy tutorial's attention, translated: scores / sqrt(d_k), masked_fill
// with -1e9 where mask is set, softmax with the max trick, A @ V.
Outcome tutorial(const Case& c) {
  const Index T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols();
  if (c.K.cols() != d_k) return Outcome::make_refusal("ValueError", "shapes not aligned");
  for (Index i = 0; i < c.Q.size(); ++i)
    if (!std::isfinite(c.Q.data()[i])) return Outcome::make_refusal("ValueError", "nan");
  DMatrix scores(T_q, T_v), A(T_q, T_v);
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) {
      scores(i, j) = c.Q.row(i).dot(c.K.row(j)) / std::sqrt(double(d_k));
      if (c.mask && (*c.mask)(i, j)) scores(i, j) = -1e9;
    }
  for (Index i = 0; i < T_q; ++i) {
    const double m = scores.row(i).maxCoeff();
    double z = 0;
    for (Index j = 0; j < T_v; ++j) z += std::exp(scores(i, j) - m);
    for (Index j = 0; j < T_v; ++j) A(i, j) = std::exp(scores(i, j) - m) / z;
  }
  return Outcome::make_result(A * c.V, A);
}

// llm.c-style softmax over a row of float logits: maxval seeded with -10000.0f.
Outcome llm_c(const Case& c) {
  DMatrix A(c.S.rows(), c.S.cols());
  for (Index i = 0; i < c.S.rows(); ++i) {
    float maxval = -10000.0f;
    for (Index j = 0; j < c.S.cols(); ++j)
      if (float(c.S(i, j)) > maxval) maxval = float(c.S(i, j));
    float sum = 0.0f;
    for (Index j = 0; j < c.S.cols(); ++j) sum += expf(float(c.S(i, j)) - maxval);
    const float norm = sum == 0.0f ? 0.0f : 1.0f / sum;
    for (Index j = 0; j < c.S.cols(); ++j) A(i, j) = double(expf(float(c.S(i, j)) - maxval) * norm);
  }
  return Outcome::make_result(DMatrix(), A);
}

// AllenNLP-like masked_softmax: softmax(vector * mask) * mask / (sum + 1e-13), mask = keep.
Outcome allennlp(const Case& c) {
  DMatrix A(c.S.rows(), c.S.cols());
  for (Index i = 0; i < c.S.rows(); ++i) {
    std::vector<double> keep(static_cast<std::size_t>(c.S.cols()));
    double m = -std::numeric_limits<double>::infinity(), z = 0, z2 = 0;
    for (Index j = 0; j < c.S.cols(); ++j) {
      keep[std::size_t(j)] = c.mask && (*c.mask)(i, j) ? 0.0 : 1.0;
      m = std::max(m, c.S(i, j) * keep[std::size_t(j)]);
    }
    for (Index j = 0; j < c.S.cols(); ++j) z += std::exp(c.S(i, j) * keep[std::size_t(j)] - m);
    for (Index j = 0; j < c.S.cols(); ++j) {
      A(i, j) = std::exp(c.S(i, j) * keep[std::size_t(j)] - m) / z * keep[std::size_t(j)];
      z2 += A(i, j);
    }
    for (Index j = 0; j < c.S.cols(); ++j) A(i, j) /= (z2 + 1e-13);
  }
  return Outcome::make_result(DMatrix(), A);
}

// Pure-Python attention with a zip()-based dot product: zip stops at the
// shorter row, so Q and K of different widths are cut to the common width,
// while the scale reads d_k = len(Q[0]) (Q's own width).
Outcome zip_dot(const Case& c) {
  const Index T_q = c.Q.rows(), T_v = c.K.rows(), w = std::min(c.Q.cols(), c.K.cols());
  if (c.V.rows() != T_v) return Outcome::make_refusal("ValueError", "one value per key");
  DMatrix A(T_q, T_v);
  for (Index i = 0; i < T_q; ++i) {
    std::vector<double> s(static_cast<std::size_t>(T_v));
    double m = -std::numeric_limits<double>::infinity(), z = 0;
    for (Index j = 0; j < T_v; ++j) {
      double dot = 0;
      for (Index t = 0; t < w; ++t) dot += c.Q(i, t) * c.K(j, t);
      s[std::size_t(j)] = c.mask && (*c.mask)(i, j) ? -std::numeric_limits<double>::infinity()
                                                    : dot / std::sqrt(double(c.Q.cols()));
      if (s[std::size_t(j)] > m) m = s[std::size_t(j)];
    }
    if (m == -std::numeric_limits<double>::infinity())
      return Outcome::make_refusal("ValueError", "softmax over no visible key");
    for (Index j = 0; j < T_v; ++j) z += (A(i, j) = std::exp(s[std::size_t(j)] - m));
    for (Index j = 0; j < T_v; ++j) A(i, j) /= z;
  }
  return Outcome::make_result(A * c.V, A);
}

}  // namespace

TEST_CASE("a zip()-truncated dot product scaled by Q's width is dk_mismatch_accepted or not named",
          "[outside]") {
  FnSubject s("zip", Operation::attention, zip_dot);
  Case c = small_case(Operation::attention);  // dk_mismatch_refused's kind of counterexample
  c.K = DMatrix::Constant(2, 2, 0.5);
  const Diagnosis d = attn::mis::diagnose(s, c, "dk_mismatch_refused");
  INFO(attn::mis::to_json(d));
  CHECK(named_only(d, "dk_mismatch_accepted"));
  REQUIRE(d.verdict == Diagnosis::Verdict::misconception);
  REQUIRE(d.fits[0].params.size() == 1);
  CHECK(d.fits[0].params[0].text == "1/sqrt(Q's width)");
}

TEST_CASE("a NumPy tutorial's attention (masked_fill -1e9) is finite_fill or not named", "[outside]") {
  FnSubject s("tutorial", Operation::attention, tutorial);
  const Diagnosis d = attn::mis::diagnose(s, small_case(Operation::attention), "exact_zeros");
  INFO(attn::mis::to_json(d));
  CHECK(named_only(d, "finite_fill"));
}

TEST_CASE("llm.c's float softmax (-10000.0f seed) is max_floor or not named", "[outside]") {
  FnSubject s("llm.c", Operation::softmax_rows, llm_c, Precision::of_float());
  const Diagnosis d = attn::mis::diagnose(s, small_case(Operation::softmax_rows), "oracle_agreement");
  INFO(attn::mis::to_json(d));
  CHECK(named_only(d, "max_floor"));
}

TEST_CASE("AllenNLP's masked_softmax is multiplicative_mask or not named", "[outside]") {
  FnSubject s("allennlp", Operation::masked_softmax, allennlp);
  const Diagnosis d = attn::mis::diagnose(s, small_case(Operation::masked_softmax), "exact_zeros");
  INFO(attn::mis::to_json(d));
  CHECK(named_only(d, "multiplicative_mask"));
}

// A PyTorch user's causal mask for F.scaled_dot_product_attention (True =
// may attend): np.tril(ones, k=offset), returned as is. The advice must say
// how to build the mask, not how to forward one (~mask).
TEST_CASE("a torch-convention causal mask builder is inverted_mask, with builder advice", "[outside]") {
  FnSubject s("torch keep mask", Operation::causal_mask, [](const Case& c) {
    const auto& m = c.mask_shape;
    const Index off = m.bottom_right ? m.T_v - m.T_q : 0;
    attn::Mask M(m.T_q, m.T_v);
    for (Index i = 0; i < m.T_q; ++i)
      for (Index j = 0; j < m.T_v; ++j) M(i, j) = j <= i + off;  // tril: the allowed keys
    Outcome o = Outcome::make_result(DMatrix(), DMatrix());
    o.mask = M;
    return o;
  });
  attn::mis::Options opt;
  opt.language = attn::mis::Language::numpy;
  const Diagnosis d = attn::mis::diagnose(s, small_case(Operation::causal_mask),
                                          "causal_mask_matches_definition", opt);
  INFO(attn::mis::to_json(d));
  CHECK(named_only(d, "inverted_mask"));
  CHECK(d.explanation.find("np.triu(ones") != std::string::npos);
  CHECK(d.explanation.find("~mask") == std::string::npos);
}

// A FlashAttention forward pass that saves L = m + l instead of m + log(l):
// O exact, the logsumexp off by l - log(l) >= 1. Not in the catalogue, and
// no narrower type explains it (a float16 or bfloat16 computation would not
// give O exact to float64), so nothing may be named.
TEST_CASE("a logsumexp without the log, O exact, is not named (not low_precision)", "[outside]") {
  const auto correct = correct_loops(Operation::attention_tiled);
  FnSubject s("lse without log", Operation::attention_tiled, [correct](const Case& c) {
    Outcome o = correct(c);
    if (o.kind != Outcome::Kind::result) return o;
    const double scale = std::sqrt(double(c.Q.cols()));
    for (Index i = 0; i < c.Q.rows(); ++i) {
      double m = -std::numeric_limits<double>::infinity();
      for (Index j = 0; j < c.K.rows(); ++j)
        if (!(c.mask && (*c.mask)(i, j))) m = std::max(m, c.Q.row(i).dot(c.K.row(j)) / scale);
      o.logsumexp(i, 0) = m + std::exp(o.logsumexp(i, 0) - m);
    }
    return o;
  });
  // The grader's shrunk counterexample: one large logit, lse = -2^30, where
  // bfloat16's bound on the logsumexp (~1e8) covers the error 1.
  Case big = small_case(Operation::attention_tiled);
  big.Q = DMatrix::Constant(1, 1, -32768.0);
  big.K = DMatrix::Constant(1, 1, 32768.0);
  big.V = DMatrix::Zero(1, 1);
  big.mask.reset();
  for (const Case& c : {small_case(Operation::attention_tiled), big}) {
    const Diagnosis d = attn::mis::diagnose(s, c, "oracle_agreement");
    INFO(attn::mis::to_json(d));
    CHECK(d.verdict != Diagnosis::Verdict::consistent);
    CHECK(d.fits.empty());
  }
}

// An additive mask as BERT-era code writes it: scores + (mask * -10000.0), in
// float64, so a query row whose every key is forbidden keeps the softmax of
// its own logits instead of being refused.
Outcome additive_mask(const Case& c) {
  const Index T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols();
  if (c.K.cols() != d_k) return Outcome::make_refusal("ValueError", "shapes not aligned");
  for (const DMatrix* M : {&c.Q, &c.K, &c.V})
    for (Index i = 0; i < M->size(); ++i)
      if (!std::isfinite(M->data()[i])) return Outcome::make_refusal("ValueError", "not finite");
  DMatrix A(T_q, T_v);
  for (Index i = 0; i < T_q; ++i) {
    std::vector<double> s(static_cast<std::size_t>(T_v));
    for (Index j = 0; j < T_v; ++j)
      s[std::size_t(j)] = c.Q.row(i).dot(c.K.row(j)) / std::sqrt(double(d_k)) +
                          ((c.mask && (*c.mask)(i, j)) ? 1.0 : 0.0) * -10000.0;
    const double m = *std::max_element(s.begin(), s.end());
    double z = 0;
    for (double x : s) z += std::exp(x - m);
    for (Index j = 0; j < T_v; ++j) A(i, j) = std::exp(s[std::size_t(j)] - m) / z;
  }
  return Outcome::make_result(A * c.V, A);
}

TEST_CASE("an additive mask (scores + mask * -10000) is finite_fill with the fill added", "[outside]") {
  FnSubject s("additive", Operation::attention, additive_mask);
  Case c = small_case(Operation::attention);
  (*c.mask)(0, 0) = true;  // the counterexample of fully_forbidden_refused: row 0 wholly forbidden
  const Diagnosis d = attn::mis::diagnose(s, c, "fully_forbidden_refused", {});
  INFO(attn::mis::to_json(d));
  REQUIRE(d.verdict == Diagnosis::Verdict::misconception);
  REQUIRE(d.fits.size() == 1);
  CHECK(d.fits[0].key == "finite_fill");
  const auto& p = d.fits[0].params;
  CHECK(std::any_of(p.begin(), p.end(), [](const attn::mis::Param& x) { return x.text == "added to the logits"; }));
}
