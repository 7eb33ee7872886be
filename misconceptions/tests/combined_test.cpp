// (e) Two mistakes at once, as public code makes them: each pair written as
// plain loops (not from the models) is named as exactly those two families
// (Diagnosis::Verdict::combined); one mistake alone keeps its single name.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "attn/mis/diagnose.hpp"
#include "subjects.hpp"

using namespace mis_test;
using attn::mis::Diagnosis;

namespace {

/// How a written attention departs from the definition.
struct Flaws {
  /// fixed_64: 1/sqrt(64) = 1/8 whatever d_k (a configuration's d_k written into the code).
  enum class Scale { sqrt_dk, none, sqrt_dv, fixed_64 } scale = Scale::sqrt_dk;
  /// Forbidden logits: -inf (0 here) or this finite fill (S = fill, as masked_fill does).
  double fill = 0;
  /// The fill added to the forbidden logits (S + fill, an additive mask) instead.
  bool fill_added = false;
  /// A query row with every key forbidden: refused, answered with zeros (the
  /// NaN of 0/0 replaced, as nan_to_num does), the uniform average (a
  /// finite fill with every logit equal), or left to the arithmetic
  /// (softmax of all -inf: exp(-inf - (-inf)) = NaN, as nanoGPT's
  /// masked_fill(-inf)).
  enum class EmptyRow { refuse, zeros, uniform, nan } empty_row = EmptyRow::refuse;
  bool in_float = false;  ///< every step in float32 (declared float64)
};

/// Scaled dot-product attention in plain loops with `f`'s flaws.
Outcome written(const Case& c, const Flaws& f) {
  const Index T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols(), d_v = c.V.cols();
  if (c.K.cols() != d_k) return Outcome::make_refusal("ValueError", "shapes not aligned");
  for (const DMatrix* M : {&c.Q, &c.K, &c.V})
    for (Index i = 0; i < M->size(); ++i)
      if (!std::isfinite(M->data()[i])) return Outcome::make_refusal("ValueError", "not finite");
  auto r = [&](double x) { return f.in_float ? double(float(x)) : x; };
  const double root = f.scale == Flaws::Scale::none       ? 1.0
                      : f.scale == Flaws::Scale::fixed_64 ? 8.0
                      : r(std::sqrt(double(f.scale == Flaws::Scale::sqrt_dv ? d_v : d_k)));
  DMatrix A(T_q, T_v), O(T_q, d_v);
  for (Index i = 0; i < T_q; ++i) {
    std::vector<double> s(static_cast<std::size_t>(T_v));
    bool any = false;
    for (Index j = 0; j < T_v; ++j) {
      const bool forbidden = c.mask && (*c.mask)(i, j);
      any = any || !forbidden;
      double dot = 0;
      for (Index k = 0; k < d_k; ++k) dot = r(dot + r(c.Q(i, k) * c.K(j, k)));
      const double logit = r(dot / root);
      s[std::size_t(j)] = !forbidden       ? logit
                          : f.fill == 0    ? -std::numeric_limits<double>::infinity()
                          : f.fill_added   ? r(logit + f.fill)
                                           : f.fill;
    }
    // A finite fill leaves an empty row uniform unless the code zeroes it
    // afterwards (Megatron-LM's fused softmax zeroes rows with every key masked).
    if (!any && f.empty_row != Flaws::EmptyRow::nan && (f.fill == 0 || f.empty_row == Flaws::EmptyRow::zeros)) {
      if (f.empty_row == Flaws::EmptyRow::refuse) return Outcome::make_refusal("ValueError", "every key forbidden");
      const double a = f.empty_row == Flaws::EmptyRow::zeros ? 0.0 : r(1.0 / double(T_v));
      for (Index j = 0; j < T_v; ++j) A(i, j) = a;
      for (Index k = 0; k < d_v; ++k) {
        double o = 0;
        for (Index j = 0; j < T_v; ++j) o = r(o + r(a * c.V(j, k)));
        O(i, k) = o;
      }
      continue;
    }
    softmax_row_and_output(c, i, s, r, A, O);
  }
  return Outcome::make_result(O, A);
}

Diagnosis diagnosed(const Flaws& f) {
  FnSubject s("written", Operation::attention, [f](const Case& c) { return written(c, f); });
  return attn::mis::diagnose(s, small_case(Operation::attention), "oracle_agreement", {});
}

std::set<std::string> keys(const Diagnosis& d) {
  std::set<std::string> k;
  for (const auto& fit : d.fits) k.insert(fit.key);
  return k;
}

/// The fit of `key` in d, or nullptr.
const attn::mis::Fit* fit_of(const Diagnosis& d, const std::string& key) {
  for (const auto& f : d.fits)
    if (f.key == key) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE("two mistakes in different steps are named together", "[combined]") {
  struct Pair {
    const char* what;
    Flaws flaws;
    std::set<std::string> keys;
  };
  Flaws sqrt_dv_fill, none_zeros, none_nan, float_none;
  sqrt_dv_fill.scale = Flaws::Scale::sqrt_dv;
  sqrt_dv_fill.fill = -1e9;
  none_zeros.scale = Flaws::Scale::none;
  none_zeros.empty_row = Flaws::EmptyRow::zeros;
  none_nan.scale = Flaws::Scale::none;
  none_nan.empty_row = Flaws::EmptyRow::nan;
  float_none.scale = Flaws::Scale::none;
  float_none.in_float = true;
  const Pair pairs[] = {
      {"scale 1/sqrt(d_v), masked_fill(-1e9)", sqrt_dv_fill, {"wrong_scale", "finite_fill"}},
      {"no scale, zeros for a fully forbidden row", none_zeros, {"wrong_scale", "fully_forbidden_answered"}},
      // float64: wrong_scale fits every row but the fully forbidden one,
      // whose NaN is the convention's, not the scale's.
      {"no scale, NaN for a fully forbidden row", none_nan, {"wrong_scale", "fully_forbidden_answered"}},
      {"no scale, float32 throughout", float_none, {"wrong_scale", "low_precision"}},
  };
  for (const Pair& p : pairs) {
    DYNAMIC_SECTION(p.what) {
      const Diagnosis d = diagnosed(p.flaws);
      INFO(attn::mis::to_json(d));
      CHECK(d.verdict == Diagnosis::Verdict::combined);
      CHECK(keys(d) == p.keys);
      CHECK(d.explanation.find("together") != std::string::npos);
    }
  }
}

TEST_CASE("three mistakes, a pair computed in float32, are named together", "[combined]") {
  struct Triple {
    const char* what;
    Flaws flaws;
    std::set<std::string> keys;
  };
  Flaws fill_zeros_float, none_fill_float;
  // Megatron-LM's core attention: masked_fill(-10000), rows with every key
  // masked zeroed, float32 throughout.
  fill_zeros_float.fill = -1e4;
  fill_zeros_float.empty_row = Flaws::EmptyRow::zeros;
  fill_zeros_float.in_float = true;
  // No scale and masked_fill(-1e9) in float32 (Keras' Attention layer, T5).
  none_fill_float.scale = Flaws::Scale::none;
  none_fill_float.fill = -1e9;
  none_fill_float.in_float = true;
  // graykode/nlp-tutorial's Transformer: 1/sqrt(64) whatever d_k,
  // masked_fill(-1e9), float32.
  Flaws fixed_fill_float;
  fixed_fill_float.scale = Flaws::Scale::fixed_64;
  fixed_fill_float.fill = -1e9;
  fixed_fill_float.in_float = true;
  // The same scale with -inf masking: an empty row answered NaN in float32
  // is the convention's, named beside the scale and the precision, not left
  // to the pair's arithmetic.
  Flaws fixed_nan_float;
  fixed_nan_float.scale = Flaws::Scale::fixed_64;
  fixed_nan_float.empty_row = Flaws::EmptyRow::nan;
  fixed_nan_float.in_float = true;
  const Triple triples[] = {
      {"fill -1e4, zeros for a fully forbidden row, float32", fill_zeros_float,
       {"finite_fill", "fully_forbidden_answered", "low_precision"}},
      {"no scale, fill -1e9, float32", none_fill_float, {"wrong_scale", "finite_fill", "low_precision"}},
      {"a fixed 1/8 scale, fill -1e9, float32", fixed_fill_float,
       {"wrong_scale", "finite_fill", "low_precision"}},
      {"a fixed 1/8 scale, NaN for a fully forbidden row, float32", fixed_nan_float,
       {"wrong_scale", "fully_forbidden_answered", "low_precision"}},
  };
  for (const Triple& t : triples) {
    DYNAMIC_SECTION(t.what) {
      const Diagnosis d = diagnosed(t.flaws);
      INFO(attn::mis::to_json(d));
      CHECK(d.verdict == Diagnosis::Verdict::combined);
      CHECK(keys(d) == t.keys);
      CHECK(d.explanation.find("these three together") != std::string::npos);
      if (const attn::mis::Fit* lp = fit_of(d, "low_precision"))
        CHECK(lp->params.at(0).text == "float32");
    }
  }
}

// One cause, one explanation: a failure whose battery hides one of three
// mistakes (keras's Attention layer under the default seed: scale_off's
// shrunk counterexample has Q so small that no scale is seen, and the other
// failures' counterexamples displace the battery's cases that would show it)
// gets a pair on its own battery; another failure's answers contradict the
// pair, and the three named there reproduce this battery too, so this
// failure is named as that one. Here the pair is set by hand on a battery
// the three reproduce (which battery cases are displaced depends on the
// grader's other failures; grader/e2e/outside_public_keras_attention_layer_py
// runs the real report).
TEST_CASE("a pair contradicted by another failure gives way to the three named there", "[combined]") {
  Flaws none_added_float;
  none_added_float.scale = Flaws::Scale::none;
  none_added_float.fill = -1e9;
  none_added_float.fill_added = true;
  none_added_float.in_float = true;
  FnSubject s("written", Operation::attention, [&](const Case& c) { return written(c, none_added_float); });
  const Diagnosis there = attn::mis::diagnose(s, small_case(Operation::attention), "textbook_example", {});
  INFO(attn::mis::to_json(there));
  REQUIRE(there.verdict == Diagnosis::Verdict::combined);
  REQUIRE(keys(there) == std::set<std::string>{"wrong_scale", "finite_fill", "low_precision"});
  Diagnosis here = attn::mis::diagnose(s, small_case(Operation::attention), "scale_off", {});
  REQUIRE(keys(here) == keys(there));
  // The pair without the scale, as the displaced battery named it.
  here.fits = {*fit_of(there, "finite_fill"), *fit_of(there, "low_precision")};
  const Diagnosis here_before = here;
  CHECK(attn::mis::withdraw_contradicted(here, {&there}, s, attn::mis::Language::numpy));
  INFO(attn::mis::to_json(here));
  CHECK(here.verdict == Diagnosis::Verdict::combined);
  CHECK(keys(here) == keys(there));
  REQUIRE(here.withdrawn.size() == 1);
  CHECK(here.withdrawn[0].second == "textbook_example");
  CHECK(here.explanation.rfind("Named as under textbook_example", 0) == 0);
  // The three named there are not withdrawn by this failure's answers.
  Diagnosis there_after = there;
  CHECK_FALSE(attn::mis::withdraw_contradicted(there_after, {&here_before}, s, attn::mis::Language::numpy));
}

// The pair's text is true of the single it was preferred to: wrong_scale
// alone fits the NaN row only by leaving it open (refuse or answer), so the
// text says that, never "no one known mistake" or "neither alone does".
TEST_CASE("a pair preferred to a single that alone fits says so", "[combined]") {
  Flaws f;
  f.scale = Flaws::Scale::none;
  f.empty_row = Flaws::EmptyRow::nan;
  const Diagnosis d = diagnosed(f);
  INFO(attn::mis::to_json(d));
  CHECK(d.verdict == Diagnosis::Verdict::combined);
  CHECK(d.explanation.find("neither alone") == std::string::npos);
  CHECK(d.explanation.find("No one known mistake") == std::string::npos);
  CHECK(d.explanation.find("[wrong_scale] alone leaves the fully forbidden rows unexplained") !=
        std::string::npos);
  // Two mistakes of which neither alone fits keep the old words.
  Flaws g;
  g.scale = Flaws::Scale::none;
  g.empty_row = Flaws::EmptyRow::zeros;
  const Diagnosis e = diagnosed(g);
  INFO(attn::mis::to_json(e));
  CHECK(e.verdict == Diagnosis::Verdict::combined);
  CHECK(e.explanation.find("neither alone does") != std::string::npos);
}

TEST_CASE("one mistake alone is still named alone, and the definition not at all", "[combined]") {
  Flaws none, fill;
  none.scale = Flaws::Scale::none;
  fill.fill = -1e9;
  for (const Flaws& f : {none, fill}) {
    const Diagnosis d = diagnosed(f);
    INFO(attn::mis::to_json(d));
    CHECK(d.verdict == Diagnosis::Verdict::misconception);
  }
  const Diagnosis clean = diagnosed(Flaws{});
  INFO(attn::mis::to_json(clean));
  CHECK(clean.verdict == Diagnosis::Verdict::consistent);
}

namespace {

/// The diagnosis of the written attention with an empty row answered `row`
/// (and float32 throughout if `in_float`) names fully_forbidden_answered with
/// the answer `answer`, and, under float32, low_precision (float32) with it.
void check_convention(Flaws::EmptyRow row, const char* answer, bool in_float) {
  Flaws f;
  f.empty_row = row;
  f.in_float = in_float;
  const Diagnosis d = diagnosed(f);
  INFO(attn::mis::to_json(d));
  if (in_float) {
    CHECK(d.verdict == Diagnosis::Verdict::combined);
    CHECK(keys(d) == std::set<std::string>{"low_precision", "fully_forbidden_answered"});
    const attn::mis::Fit* lp = fit_of(d, "low_precision");
    REQUIRE(lp);
    REQUIRE(lp->params.size() == 1);
    CHECK(lp->params[0].text == "float32");
    // low_precision alone fits a NaN row too, as the less definite claim.
    if (row == Flaws::EmptyRow::nan) {
      CHECK(d.explanation.find("neither alone") == std::string::npos);
      CHECK(d.explanation.find("[low_precision] alone leaves the fully forbidden rows unexplained") !=
            std::string::npos);
    }
  } else {
    CHECK(d.verdict == Diagnosis::Verdict::misconception);
    CHECK(keys(d) == std::set<std::string>{"fully_forbidden_answered"});
  }
  const attn::mis::Fit* ff = fit_of(d, "fully_forbidden_answered");
  REQUIRE(ff);
  REQUIRE(ff->params.size() == 1);
  CHECK(ff->params[0].text == answer);
}

}  // namespace

// nanoGPT, minGPT, fairseq: masked_fill(-inf) and softmax in float32, so a
// fully forbidden row is NaN. Computing in float64 would answer the same NaN:
// the row is the convention (fully_forbidden_answered), the rounding elsewhere
// float32 (low_precision), the pair of "Two mistakes at once"; low_precision
// alone may refuse the row or answer it, a wider claim than the pair's NaN.
TEST_CASE("a NaN empty row under float32 is the convention, not the precision", "[combined]") {
  SECTION("float64") { check_convention(Flaws::EmptyRow::nan, "NaN", false); }
  SECTION("float32") { check_convention(Flaws::EmptyRow::nan, "NaN", true); }
}

// flash-attention's reference and llama2.c: float32 with zeros for an empty
// row. In float32 a max floor at float lowest (max_floor) gives the same zeros
// and is like -inf on every row float32 holds; the levels the narrow type
// holds are a case of their own, so the other floors are told apart.
TEST_CASE("a zeros empty row under float32 is named with the precision", "[combined]") {
  SECTION("float64") { check_convention(Flaws::EmptyRow::zeros, "zeros", false); }
  SECTION("float32") { check_convention(Flaws::EmptyRow::zeros, "zeros", true); }
}

// The Annotated Transformer (masked_fill(-1e9)) and d2l's masked_softmax
// (-1e6), both in float32. A fill is told from its neighbours by rows whose
// allowed logits sit near it (the battery's levels); float32 holds the
// levels down to -2e35, so the fill reported is the one those rows single
// out, never one they rule out (-1e4 for -1e9, -100 for -1e6).
TEST_CASE("a finite fill under float32 is found at its value", "[combined]") {
  for (const double fill : {-1e9, -1e6}) {
    DYNAMIC_SECTION("fill " << fill) {
      Flaws f;
      f.fill = fill;
      f.in_float = true;
      const Diagnosis d = diagnosed(f);
      INFO(attn::mis::to_json(d));
      CHECK(d.verdict == Diagnosis::Verdict::combined);
      CHECK(keys(d) == std::set<std::string>{"low_precision", "finite_fill"});
      const attn::mis::Fit* ff = fit_of(d, "finite_fill");
      REQUIRE(ff);
      REQUIRE(!ff->params.empty());
      CHECK(ff->params[0].value == fill);
      CHECK(ff->params.size() == 1);  // masked_fill, not an additive mask
      CHECK(ff->also_fits.empty());
    }
  }
}
