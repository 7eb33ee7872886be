// The fixed edge cases (properties/src/edge_cases.hpp, run after the random ones pass):
// reached on every seed at the default case count, passed by the library in
// float and double, and a finite sentinel for -inf (-1e20, float's lowest)
// caught by exact_zeros on every seed; a NaN or Inf input refused or carried
// into the answer, never swallowed.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>

#include "attn/prop/catalog.hpp"
#include "attn/prop/lib_subject.hpp"
#include "attn/prop/property.hpp"

using namespace attn::prop;

namespace {

const std::uint64_t kSeeds[] = {20261129, 1, 2, 3, 4};

/// Attention (d_k from Q) whose forbidden logits are `fill` instead of -inf:
/// the habit of masked_fill(mask, -1e20) or np.finfo(np.float32).min.
class FillSubject : public Subject {
 public:
  explicit FillSubject(double fill) : fill_(fill) {}
  std::string name() const override { return "fill"; }
  Precision precision() const override { return {}; }
  bool supports(Operation op) const override { return op == Operation::attention; }
  Outcome run(const Case& c) override {
    if (c.Q.cols() != c.K.cols() || c.K.rows() != c.V.rows())
      return Outcome::make_refusal("ValueError", "shapes");
    DMatrix S = c.Q * c.K.transpose() / std::sqrt(double(c.Q.cols()));
    if (c.mask) {
      if (c.mask->rows() != S.rows() || c.mask->cols() != S.cols())
        return Outcome::make_refusal("ValueError", "mask shape");
      for (attn::Index i = 0; i < S.rows(); ++i) {
        if (c.mask->row(i).all()) return Outcome::make_refusal("ValueError", "fully masked row");
        for (attn::Index j = 0; j < S.cols(); ++j)
          if ((*c.mask)(i, j)) S(i, j) = fill_;
      }
    }
    DMatrix A(S.rows(), S.cols());
    for (attn::Index i = 0; i < S.rows(); ++i) {
      const double m = S.row(i).maxCoeff();
      double z = 0;
      for (attn::Index j = 0; j < S.cols(); ++j) z += (A(i, j) = std::exp(S(i, j) - m));
      A.row(i) /= z;
    }
    return Outcome::make_result(A * c.V, A);
  }

 private:
  double fill_;
};

}  // namespace

TEST_CASE("edge cases: every regime is reached on every seed, and the library passes",
          "[edge]") {
  for (const auto seed : kSeeds) {
    RunConfig cfg;
    cfg.seed = seed;
    cfg.cases = default_case_count();
    LibSubject<double> lib;
    const Verdict v = run_property(exact_zeros(Operation::attention), lib, cfg);
    INFO("seed " << seed);
    CHECK(v.passed());
    for (const char* tag : {"edge: allowed logits at -2e+04", "edge: allowed logits at -2e+09",
                            "edge: allowed logits at -2e+20", "edge: allowed logits at -3e+38",
                            "edge: allowed logits at the lowest finite double"})
      CHECK(v.regimes.count(tag) == 1);
    const Verdict s = run_property(row_stochastic(Operation::masked_softmax), lib, cfg);
    CHECK(s.passed());
    CHECK(s.regimes.count("edge: -inf in S (the text's F2 matrix)") == 1);
    LibSubject<float> libf;
    const Verdict f = run_property(oracle_agreement(Operation::softmax_rows), libf, cfg);
    CHECK(f.passed());
    CHECK(f.regimes.count("edge: allowed logits at the lowest finite float") == 1);
  }
}

TEST_CASE("edge cases: the sentinels -1e20 and float's lowest are caught on every seed", "[edge]") {
  for (const double fill : {-1e20, double(std::numeric_limits<float>::lowest()), -1e9, -1e4}) {
    for (const auto seed : kSeeds) {
      INFO("fill " << fill << ", seed " << seed);
      FillSubject s(fill);
      RunConfig cfg;
      cfg.seed = seed;
      cfg.cases = default_case_count();
      const Verdict v = run_property(exact_zeros(Operation::attention), s, cfg);
      REQUIRE_FALSE(v.passed());
      REQUIRE(v.counterexample);
      // Caught by a random case (shrunk) or, when those miss it, by an edge
      // case: one query, three keys, the level that matters.
      if (v.counterexample->tags.at(0).rfind("edge: ", 0) == 0) CHECK(v.counterexample->Q.rows() == 1);
    }
  }
}

namespace {

/// Replaces every NaN or Inf input by 0 and then answers correctly (the
/// habit of np.nan_to_num on the inputs): it swallows bad inputs.
class SwallowSubject : public Subject {
 public:
  std::string name() const override { return "swallow"; }
  Precision precision() const override { return {}; }
  bool supports(Operation op) const override { return op == Operation::attention; }
  Outcome run(const Case& c) override {
    Case clean = c;
    for (DMatrix* M : {&clean.Q, &clean.K, &clean.V})
      *M = M->unaryExpr([](double x) { return std::isfinite(x) ? x : 0.0; });
    return lib_.run(clean);
  }

 private:
  LibSubject<double> lib_;
};

}  // namespace

TEST_CASE("edge cases: a NaN or Inf input is refused or reaches the answer, and swallowed it fails",
          "[edge]") {
  for (const auto seed : kSeeds) {
    INFO("seed " << seed);
    RunConfig cfg;
    cfg.seed = seed;
    cfg.cases = default_case_count();
    LibSubject<double> lib;  // refuses with NonFiniteInputError
    const Verdict v = run_property(oracle_agreement(Operation::attention), lib, cfg);
    CHECK(v.passed());
    CHECK(v.regimes.count("edge: a NaN input") == 1);
    CHECK(v.regimes.count("edge: an Inf input") == 1);
    // No input checks at all: the NaN and Inf propagate into O and A.
    FillSubject plain(-std::numeric_limits<double>::infinity());
    CHECK(run_property(oracle_agreement(Operation::attention), plain, cfg).passed());
    SwallowSubject swallow;
    const Verdict w = run_property(oracle_agreement(Operation::attention), swallow, cfg);
    REQUIRE_FALSE(w.passed());
    REQUIRE(w.counterexample);
    CHECK(w.counterexample->tags.at(0) == "edge: a NaN input");
    REQUIRE(w.failure);
    CHECK(w.failure->summary.find("swallowed") != std::string::npos);
  }
}
