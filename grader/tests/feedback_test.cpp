// Hints state facts, the diagnosis stage names misconceptions.
//
// (1) feedback.cpp's hints: a misconception's answer on one counterexample
// gets the failed property's own hint, never a guessed misconception (one
// shrunk case fits many mistakes); the facts it does read from an outcome
// (a timeout, A of shape T_v x T_q, a valid input refused, a skeleton's
// NotImplementedError) are named. (2) The diagnosis stage over attn::mis:
// a subject with one mistake is named by its key through the stage, a
// correct one is not, "raises on every call" is not a misconception, a
// counterexample is diagnosed once, a stop says nothing. (3) results.json's
// extra_data carries the keys and parameters.
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "diagnosis/diagnosis_stage.hpp"
#include "diagnosis/diagnosis_text.hpp"
#include "diagnosis/feedback.hpp"
#include "exercises/exercise.hpp"
#include "exercises/registry.hpp"
#include "attn/prop/catalog.hpp"
#include "attn/prop/operation.hpp"
#include "attn/prop/property.hpp"
#include "report/results_json.hpp"
#include "report/scoring.hpp"

namespace {

using attn::Index;
using attn::Mask;
using attn::prop::Case;
using attn::prop::DMatrix;
using attn::prop::Outcome;
using attn::prop::Verdict;
using attn::grader::FailureDiagnosis;

constexpr double inf = std::numeric_limits<double>::infinity();

/// T_q = 3, T_v = 4, d_k = 4, d_v = 2, with a mask that leaves every row
/// some allowed and some forbidden keys.
Case masked_case() {
  Case c;
  c.op = attn::prop::Operation::attention;
  c.Q.resize(3, 4);
  c.Q << 0.5, -1, 2, 0.25, 1, 0, -0.5, 1.5, -2, 1, 0.75, 0;
  c.K.resize(4, 4);
  c.K << 1, 0.5, -1, 2, 0, 1, 1, -1, 2, -0.5, 0.25, 1, -1, 1, 0, 0.5;
  c.V.resize(4, 2);
  c.V << 1, 0, 0, 1, 2, -1, -1, 3;
  Mask m(3, 4);
  m << false, true, false, true,  //
      true, false, false, false,  //
      false, false, true, false;
  c.mask = m;
  return c;
}

/// Softmax of each row of S over the entries with keep(i, j), others 0
/// (a row with nothing kept is NaN).
template <class Keep>
DMatrix softmax(const DMatrix& S, Keep keep) {
  DMatrix A = DMatrix::Zero(S.rows(), S.cols());
  for (Index i = 0; i < S.rows(); ++i) {
    double m = -inf, sum = 0;
    for (Index j = 0; j < S.cols(); ++j)
      if (keep(i, j)) m = std::max(m, S(i, j));
    for (Index j = 0; j < S.cols(); ++j)
      if (keep(i, j)) sum += (A(i, j) = std::exp(S(i, j) - m));
    A.row(i) /= sum;
  }
  return A;
}

/// The property `id` as a grade or a check builds it for operation `op`
/// (else for any operation): the exercises' (F1's and F2's worked examples
/// are theirs), then the catalogue's; nullptr for an id neither has.
const attn::prop::Property* property_of(const std::string& id, attn::prop::Operation op) {
  static const std::vector<attn::prop::Property> all = [] {
    std::vector<attn::prop::Property> list;
    for (const auto& e : attn::grader::graded_exercise_ids())
      for (auto& p : attn::grader::load_exercise(e).properties) list.push_back(std::move(p));
    for (auto& p : attn::prop::catalogue_properties()) list.push_back(std::move(p));
    return list;
  }();
  for (const auto& p : all)
    if (p.id == id && p.op == op) return &p;
  for (const auto& p : all)
    if (p.id == id) return &p;
  return nullptr;
}

/// A verdict of property `p` as the runner starts it: its id, title, kind and hint.
Verdict verdict_of(const attn::prop::Property& p) {
  Verdict v;
  v.property_id = p.id;
  v.title = p.title;
  v.source = p.source;
  v.kind = p.kind;
  v.hint = p.hint;
  return v;
}

Verdict failed_with(const std::string& property, const Case& c, Outcome o) {
  const attn::prop::Property* p = property_of(property, c.op);
  REQUIRE(p);
  Verdict v = verdict_of(*p);
  v.status = attn::prop::VerdictStatus::failed;
  v.counterexample = c;
  attn::prop::Failure f;
  f.summary = "wrong";
  f.outcome = std::move(o);
  v.failure = f;
  return v;
}

Verdict failed(const std::string& property, const Case& c, const DMatrix& A) {
  return failed_with(property, c, Outcome::make_result(A * c.V, A));
}

std::string key_of(const Verdict& v) {
  const auto h = attn::grader::hint_for(v);
  return h ? h->key : std::string("none");
}

/// A subject computing `fn` in process (the submission's stand-in), counting calls.
class FnSubject : public attn::prop::Subject {
 public:
  explicit FnSubject(std::function<Outcome(const Case&)> fn) : fn_(std::move(fn)) {}
  std::string name() const override { return "fn"; }
  attn::prop::Precision precision() const override { return {}; }
  bool supports(attn::prop::Operation op) const override {
    return op == attn::prop::Operation::attention;
  }
  bool returns_weights() const override { return true; }
  Outcome run(const Case& c) override {
    ++calls;
    return fn_(c);
  }
  int calls = 0;

 private:
  std::function<Outcome(const Case&)> fn_;
};

/// Attention with the logits scaled by `scale(d_k)`, -inf before the
/// softmax, refusing what the definition refuses.
Outcome scaled_attention(const Case& c, double (*scale)(double)) {
  if (c.Q.cols() != c.K.cols() || c.K.rows() != c.V.rows())
    return Outcome::make_refusal("ValueError", "shapes");
  if (!c.Q.allFinite() || !c.K.allFinite() || !c.V.allFinite())
    return Outcome::make_refusal("ValueError", "non-finite input");
  const DMatrix S = c.Q * c.K.transpose() * scale(double(c.Q.cols()));
  const auto allowed = [&](Index i, Index j) { return !(c.mask && (*c.mask)(i, j)); };
  for (Index i = 0; i < S.rows(); ++i) {
    bool any = false;
    for (Index j = 0; j < S.cols(); ++j) any = any || allowed(i, j);
    if (!any) return Outcome::make_refusal("ValueError", "fully masked row");
  }
  const DMatrix A = softmax(S, allowed);
  return Outcome::make_result(A * c.V, A);
}

double right_scale(double d_k) { return 1 / std::sqrt(d_k); }
double twice(double d_k) { return 1 / d_k; }

}  // namespace

// ------------------------------------------------------------- (1) the hints

TEST_CASE("feedback: a misconception's answer gets the property's hint, not a guess",
          "[feedback]") {
  const Case c = masked_case();
  const DMatrix S = c.Q * c.K.transpose() * 0.5;
  // Softmax over every key, forbidden weights zeroed afterwards (F4's mistake).
  DMatrix post = softmax(S, [](Index, Index) { return true; });
  for (Index i = 0; i < 3; ++i)
    for (Index j = 0; j < 4; ++j)
      if ((*c.mask)(i, j)) post(i, j) = 0;
  const auto h = attn::grader::hint_for(failed("row_stochastic", c, post));
  REQUIRE(h);
  CHECK(h->key == "row_stochastic");
  CHECK_FALSE(h->from_shape);
  // No scale, the wrong axis: the same, whatever the values.
  const DMatrix unscaled = softmax(S * 2, [&](Index i, Index j) { return !(*c.mask)(i, j); });
  CHECK(key_of(failed("oracle_agreement", c, unscaled)) == "oracle_agreement");
  CHECK(key_of(failed("scale_off", c, unscaled)) == "scale_off");
}

TEST_CASE("feedback: a property's usual cause is not claimed where the counterexample rules it out",
          "[feedback]") {
  const DMatrix wrong = DMatrix::Constant(3, 4, 0.25);
  // scale_off on Q = 0: every logit is 0, the weights do not depend on the scale.
  Case zero_q = masked_case();
  zero_q.Q.setZero();
  const auto h = attn::grader::hint_for(failed("scale_off", zero_q, wrong));
  REQUIRE(h);
  CHECK(h->key == "no_cause_named");
  CHECK_THAT(h->advice, Catch::Contains("do not depend on the scale"));
  CHECK_THAT(h->headline, !Catch::Contains("sqrt"));
  // The same property on logits that differ keeps its own hint.
  CHECK(key_of(failed("scale_off", masked_case(), wrong)) == "scale_off");

  // tiled_equals_naive with every key in one tile: no rescale happens.
  Case one_tile = masked_case();
  one_tile.op = attn::prop::Operation::attention_tiled;
  one_tile.tile_q = 2;
  one_tile.tile_k = 4;  // T_v = 4
  const auto t = attn::grader::hint_for(failed("tiled_equals_naive", one_tile, wrong));
  REQUIRE(t);
  CHECK(t->key == "no_cause_named");
  CHECK_THAT(t->advice, Catch::Contains("one tile"));
  Case two_tiles = one_tile;
  two_tiles.tile_k = 2;
  CHECK(key_of(failed("tiled_equals_naive", two_tiles, wrong)) == "tiled_equals_naive");

  // heads_in_order on one head: the order of one head cannot be wrong.
  Case one_head;
  one_head.op = attn::prop::Operation::multi_head_attention;
  one_head.X = DMatrix::Identity(3, 3);
  one_head.heads.push_back({DMatrix::Identity(3, 2), DMatrix::Identity(3, 2), DMatrix::Identity(3, 2)});
  one_head.W_O = DMatrix::Identity(2, 2);
  const Outcome o = Outcome::make_result(DMatrix::Zero(3, 2), DMatrix());
  const auto m = attn::grader::hint_for(failed_with("heads_in_order", one_head, o));
  REQUIRE(m);
  CHECK(m->key == "no_cause_named");
  CHECK_THAT(m->advice, Catch::Contains("one head"));
  Case two_heads = one_head;
  two_heads.heads.push_back(two_heads.heads.front());
  two_heads.W_O = DMatrix::Identity(4, 4);
  CHECK(key_of(failed_with("heads_in_order", two_heads, o)) == "heads_in_order");
}

TEST_CASE("feedback: a pass, a skip, a not-run property get no hint", "[feedback]") {
  Verdict v;
  v.property_id = "row_stochastic";
  v.status = attn::prop::VerdictStatus::passed;
  CHECK_FALSE(attn::grader::hint_for(v));
  v.status = attn::prop::VerdictStatus::skipped;
  CHECK_FALSE(attn::grader::hint_for(v));
  v.status = attn::prop::VerdictStatus::not_run;
  v.stop_reason = "the time budget was used up";
  CHECK_FALSE(attn::grader::hint_for(v));
}

TEST_CASE("feedback: facts read from the outcome", "[feedback]") {
  const Case c = masked_case();  // T_q = 3, T_v = 4
  CHECK(key_of(failed_with("row_stochastic", c, Outcome::make_fault("timed out after 10 s"))) ==
        "timeout");
  // A wrong shape is a result (score_shape charges it), kept as answered.
  Outcome wrong_shape = Outcome::make_result(DMatrix::Zero(3, 2), DMatrix::Zero(4, 3));
  const auto shape = attn::grader::hint_for(failed_with("score_shape", c, wrong_shape));
  REQUIRE(shape);
  CHECK(shape->key == "weights_shape");
  CHECK_THAT(shape->advice, Catch::Contains("T_q x T_v = 3 x 4"));
  CHECK(key_of(failed_with("row_stochastic", c, Outcome::make_fault("crashed"))) == "fault");
  CHECK(key_of(failed_with("oracle_agreement", c,
                           Outcome::make_refusal("NotImplementedError", "write me"))) ==
        "not_implemented");
}

TEST_CASE("feedback: exact_zeros tells NaN and real forbidden weights from tiny ones",
          "[feedback]") {
  const Case c = masked_case();
  const DMatrix S = c.Q * c.K.transpose() * 0.5;
  // The mask never applied (or applied to other keys): forbidden keys get real weight.
  const DMatrix unmasked = softmax(S, [](Index, Index) { return true; });
  const auto large = attn::grader::hint_for(failed("exact_zeros", c, unmasked));
  REQUIRE(large);
  CHECK(large->key == "forbidden_weight_large");
  CHECK_THAT(large->advice, Catch::Contains("not 0") && Catch::Contains("-inf"));
  // S + mask * (-inf): every row NaN.
  const DMatrix nan = DMatrix::Constant(3, 4, std::numeric_limits<double>::quiet_NaN());
  CHECK(key_of(failed_with("exact_zeros", c, Outcome::make_result(nan * c.V, nan))) ==
        "forbidden_weights_nan");
  // Eigen's clamped exp: forbidden weights 5.56e-309, the table's "small but not exactly 0".
  DMatrix tiny = softmax(S, [&](Index i, Index j) { return !(*c.mask)(i, j); });
  for (Index i = 0; i < 3; ++i)
    for (Index j = 0; j < 4; ++j)
      if ((*c.mask)(i, j)) tiny(i, j) = 5.56e-309;
  const auto small = attn::grader::hint_for(failed("exact_zeros", c, tiny));
  REQUIRE(small);
  CHECK(small->key == "exact_zeros");
  CHECK_THAT(small->headline, Catch::Contains("small"));
}

TEST_CASE("feedback: F1 and F2 are told their own logits, not F3's Q K^T",
          "[feedback]") {
  Case f2;
  f2.op = attn::prop::Operation::masked_softmax;
  f2.S.resize(2, 3);
  f2.S << 0, 2, -inf, 1, -1, 0;
  const DMatrix wrong = DMatrix::Constant(2, 3, 1.0 / 3);
  const auto h2 =
      attn::grader::hint_for(failed_with("textbook_example", f2, Outcome::make_result(DMatrix(), wrong)));
  REQUIRE(h2);
  CHECK_THAT(h2->advice, Catch::Contains("[[0, 2, -inf], [1, -1, 0]]") && !Catch::Contains("Q K^T"));
  Case f1 = f2;
  f1.op = attn::prop::Operation::softmax_rows;
  const auto h1 =
      attn::grader::hint_for(failed_with("textbook_example", f1, Outcome::make_result(DMatrix(), wrong)));
  REQUIRE(h1);
  CHECK_THAT(h1->advice, Catch::Contains("[[1, 2], [1, 0]]") && !Catch::Contains("O = A V"));
  const auto o2 =
      attn::grader::hint_for(failed_with("oracle_agreement", f2, Outcome::make_result(DMatrix(), wrong)));
  REQUIRE(o2);
  CHECK_THAT(o2->advice, !Catch::Contains("Q K^T") && !Catch::Contains("O = A V"));
  const Case f3 = masked_case();
  const auto h3 = attn::grader::hint_for(failed("textbook_example", f3, DMatrix::Constant(3, 4, 0.25)));
  REQUIRE(h3);
  CHECK_THAT(h3->advice, Catch::Contains("Q K^T / sqrt(2)"));
}

TEST_CASE("feedback: AttributeError on a valid case is a refused input, never an inverted mask",
          "[feedback]") {
  Case c = masked_case();
  c.mask->row(1).setConstant(false);  // a row with no forbidden key
  const auto h = attn::grader::hint_for(
      failed_with("row_stochastic", c, Outcome::make_refusal("AttributeError", "no attribute 'T'")));
  REQUIRE(h);
  CHECK(h->key == "refuses_valid_input");
  CHECK_THAT(h->headline + h->advice, !Catch::Contains("polarity") && !Catch::Contains("invert"));
}

TEST_CASE("feedback: a mask builder that raises is told the mask's definition", "[feedback]") {
  Case c;
  c.op = attn::prop::Operation::causal_mask;
  c.mask_shape.T_q = 3;
  c.mask_shape.T_v = 2;
  CHECK(key_of(failed_with("causal_mask_matches_definition", c,
                           Outcome::make_refusal("ValueError", "T_q > T_v"))) == "mask_refused");
}

TEST_CASE("feedback: format_hint wraps and cites", "[feedback]") {
  attn::grader::Hint h{"k", "a valid input is refused",
                       "It raised ValueError on a case that has an answer; run your function on "
                       "the counterexample above and read the message.",
                       "Lemma 2, section 32.2.4"};
  const std::string text = attn::grader::format_hint(h, "  ", 60);
  CHECK(text.rfind("  hint: a valid input is refused.", 0) == 0);
  // The citation, once the wrapping's line breaks and indent are folded.
  std::string folded;
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (text[k] == '\n' || (text[k] == ' ' && !folded.empty() && folded.back() == ' ')) {
      if (folded.empty() || folded.back() != ' ') folded += ' ';
      continue;
    }
    folded += text[k];
  }
  CHECK_THAT(folded, Catch::Contains("(Lemma 2, section 32.2.4)"));
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    CHECK(end - start <= 60);
    start = end + 1;
  }
}

// ------------------------------------------------- (2) the diagnosis stage

TEST_CASE("diagnosis stage: scaling twice is wrong_scale (1/d_k), not a missing scale",
          "[feedback][diagnosis]") {
  FnSubject s([](const Case& c) { return scaled_attention(c, twice); });
  attn::grader::DiagnosisStage stage(s, attn::mis::Language::numpy);
  const Case c = masked_case();
  const Verdict v = failed("oracle_agreement", c, s.run(c).A);
  const FailureDiagnosis d = stage.diagnose(v);
  REQUIRE(d.status == FailureDiagnosis::Status::diagnosed);
  CHECK(attn::grader::misconception_keys(d) == std::vector<std::string>{"wrong_scale"});
  const auto params = attn::grader::fitted_parameters(d);
  REQUIRE(params.count("wrong_scale") == 1);
  const std::string summary = attn::grader::diagnosis_summary(d);
  CHECK_THAT(summary, Catch::Contains("misconception wrong_scale") && Catch::Contains("1/d_k"));
  CHECK_THAT(attn::grader::format_diagnosis(d), Catch::Contains("diagnosis cost: "));
  CHECK_THAT(d.engine.explanation, Catch::Contains("np.sqrt"));  // NumPy idiom for a .py file
}

TEST_CASE("diagnosis text: a parameter named with a verb reads as a clause",
          "[feedback][diagnosis]") {
  FailureDiagnosis d;
  d.status = FailureDiagnosis::Status::diagnosed;
  d.engine.verdict = attn::mis::Diagnosis::Verdict::misconception;
  d.engine.fits = {attn::mis::Fit{"no_max_shift", {attn::mis::Param{"0/0 gives", 0, "NaN"}}, {}}};
  CHECK_THAT(attn::grader::diagnosis_summary(d), Catch::Contains("no_max_shift (0/0 gives NaN)"));
  CHECK_THAT(attn::grader::diagnosis_summary(d), !Catch::Contains("gives ="));
  d.engine.fits = {attn::mis::Fit{"finite_fill", {attn::mis::Param{"fill", -1e9, "-1e9"}}, {}}};
  CHECK_THAT(attn::grader::diagnosis_summary(d), Catch::Contains("finite_fill (fill = -1e9)"));
}

TEST_CASE("diagnosis text: no known mistake is said once, not twice",
          "[feedback][diagnosis]") {
  // Weights of 0.3 everywhere (rows summing to 0.3 T_v): no model gives them.
  FnSubject s([](const Case& c) {
    const DMatrix A = DMatrix::Constant(c.Q.rows(), c.K.rows(), 0.3);
    return Outcome::make_result(A * c.V, A);
  });
  attn::grader::DiagnosisStage stage(s, attn::mis::Language::numpy);
  const Case c = masked_case();
  const FailureDiagnosis d = stage.diagnose(failed("oracle_agreement", c, s.run(c).A));
  REQUIRE(d.status == FailureDiagnosis::Status::diagnosed);
  REQUIRE(d.engine.verdict == attn::mis::Diagnosis::Verdict::no_known_mistake);
  std::string text = attn::grader::format_diagnosis(d, "", 100000);
  for (char& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const std::string said = "no known mistake reproduces these answers";
  const std::size_t first = text.find(said);
  REQUIRE(first != std::string::npos);
  CHECK(text.find(said, first + 1) == std::string::npos);
}

TEST_CASE("diagnosis stage: an operation whose spec says it is not diagnosed gets no name, one that is does",
          "[feedback][diagnosis]") {
  // A subject whose every answer is wrong (weights 0.3 everywhere): were the
  // engine run, it would answer (no known mistake at least).
  FnSubject s([](const Case& c) {
    const DMatrix A = DMatrix::Constant(c.Q.rows(), c.K.rows(), 0.3);
    return Outcome::make_result(A * c.V, A);
  });
  int not_diagnosed = 0;
  for (const attn::prop::OperationSpec& spec : attn::prop::operation_specs()) {
    if (spec.diagnosed) continue;
    ++not_diagnosed;
    attn::grader::DiagnosisStage stage(s, attn::mis::Language::numpy);
    Case c = masked_case();
    c.op = spec.op;
    const FailureDiagnosis d = stage.diagnose(failed("oracle_agreement", c, s.run(masked_case()).A));
    INFO(std::string(spec.name));
    CHECK(d.status == FailureDiagnosis::Status::not_applicable);
    CHECK_THAT(d.why_not, Catch::Contains("models no misconception of " + std::string(spec.name)));
    CHECK(stage.runs() == 0);
  }
  CHECK(not_diagnosed >= 1);  // batched_attention's row says false
  // The same failure on an operation the spec says is diagnosed runs the engine.
  attn::grader::DiagnosisStage stage(s, attn::mis::Language::numpy);
  const Case c = masked_case();
  REQUIRE(attn::prop::operation_spec(c.op).diagnosed);
  const FailureDiagnosis d = stage.diagnose(failed("oracle_agreement", c, s.run(c).A));
  CHECK(d.status == FailureDiagnosis::Status::diagnosed);
  CHECK(stage.runs() == 1);
}

TEST_CASE("diagnosis stage: a counterexample is diagnosed once", "[feedback][diagnosis]") {
  FnSubject s([](const Case& c) { return scaled_attention(c, twice); });
  attn::grader::DiagnosisStage stage(s, attn::mis::Language::cpp);
  const Case c = masked_case();
  const FailureDiagnosis first = stage.diagnose(failed("oracle_agreement", c, s.run(c).A));
  const int calls = s.calls;
  const FailureDiagnosis again = stage.diagnose(failed("row_stochastic", c, s.run(c).A));
  CHECK(s.calls == calls + 1);  // only the s.run above: no battery sent again
  CHECK(again.cached);
  CHECK(again.cached_from == "oracle_agreement");
  CHECK(again.engine.failed_property == "row_stochastic");
  CHECK(attn::grader::misconception_keys(again) == attn::grader::misconception_keys(first));
  CHECK(stage.runs() == 1);
  CHECK_THAT(attn::grader::diagnosis_cost(again), Catch::Contains("reused from oracle_agreement"));
}

TEST_CASE("diagnosis stage: a correct subject is named nothing", "[feedback][diagnosis]") {
  FnSubject s([](const Case& c) { return scaled_attention(c, right_scale); });
  attn::grader::DiagnosisStage stage(s, attn::mis::Language::numpy);
  const Case c = masked_case();
  const FailureDiagnosis d = stage.diagnose(failed("oracle_agreement", c, s.run(c).A));
  REQUIRE(d.status == FailureDiagnosis::Status::diagnosed);
  CHECK(d.engine.verdict == attn::mis::Diagnosis::Verdict::consistent);
  CHECK(attn::grader::misconception_keys(d).empty());
}

TEST_CASE("diagnosis stage: AttributeError on every call is not a misconception",
          "[feedback][diagnosis]") {
  FnSubject s([](const Case&) {
    return Outcome::make_refusal("AttributeError", "'list' object has no attribute 'shape'");
  });
  attn::grader::DiagnosisStage stage(s, attn::mis::Language::numpy);
  const Case c = masked_case();
  const FailureDiagnosis d = stage.diagnose(failed_with("row_stochastic", c, s.run(c)));
  REQUIRE(d.status == FailureDiagnosis::Status::diagnosed);
  CHECK(attn::grader::misconception_keys(d).empty());
  CHECK((d.engine.verdict == attn::mis::Diagnosis::Verdict::raises_on_every_call ||
         d.engine.verdict == attn::mis::Diagnosis::Verdict::fault));
  CHECK_THAT(attn::grader::diagnosis_summary(d), Catch::Contains("not a misconception"));
  CHECK_THAT(attn::grader::format_diagnosis(d), !Catch::Contains("inverted"));
  // Only the battery's cases were seen: other properties may have had answers.
  CHECK_THAT(attn::grader::format_diagnosis(d), !Catch::Contains("every call"));
}

TEST_CASE("diagnosis stage: a stop says nothing, and nothing runs", "[feedback][diagnosis]") {
  FnSubject s([](const Case& c) { return scaled_attention(c, twice); });
  attn::grader::DiagnosisStage stage(s, attn::mis::Language::numpy,
                                     [] { return std::optional<std::string>("the budget is spent"); });
  const Case c = masked_case();
  const Outcome o = s.run(c);
  const FailureDiagnosis d = stage.diagnose(failed_with("oracle_agreement", c, o));
  CHECK(d.status == FailureDiagnosis::Status::not_run);
  CHECK(s.calls == 1);
  CHECK(attn::grader::misconception_keys(d).empty());
  CHECK_THAT(attn::grader::diagnosis_summary(d), Catch::Contains("the budget is spent"));
}

// ------------------------------------------------ (3) results.json extra_data

TEST_CASE("results.json: a failed test carries the keys and the parameters", "[feedback][diagnosis]") {
  FnSubject s([](const Case& c) { return scaled_attention(c, twice); });
  attn::grader::DiagnosisStage stage(s, attn::mis::Language::numpy);
  const Case c = masked_case();
  const Verdict v = failed("oracle_agreement", c, s.run(c).A);
  const FailureDiagnosis d = stage.diagnose(v);
  const attn::grader::ScoredItem item = attn::grader::score_verdict(v, {}, &d);
  const auto extra = attn::grader::diagnosis_extra_data(item);
  CHECK(extra.at("misconceptions") == nlohmann::ordered_json::array({"wrong_scale"}));
  CHECK(extra.at("parameters").at("wrong_scale").size() >= 1);
  CHECK(extra.at("diagnosis") == "misconception");
  CHECK(extra.at("diagnosis_cost").at("cases_sent").get<int>() >= 1);
  CHECK_THAT(item.text, Catch::Contains("diagnosis: misconception wrong_scale"));
  // Without a diagnosis: an empty list, never absent.
  const attn::grader::ScoredItem plain = attn::grader::score_verdict(v, {});
  CHECK(attn::grader::diagnosis_extra_data(plain).at("misconceptions").empty());
  // Nothing withdrawn: no "withdrawn" member; a name withdrawn: said with the failure that ruled it out.
  CHECK_FALSE(extra.contains("withdrawn"));
  FailureDiagnosis held_back = d;
  held_back.engine.withdrawn = {{"wrong_scale (scale = 2)", "exact_zeros"}};
  const attn::grader::ScoredItem withdrawn = attn::grader::score_verdict(v, {}, &held_back);
  const auto said = attn::grader::diagnosis_extra_data(withdrawn).at("withdrawn");
  REQUIRE(said.size() == 1);
  CHECK(said[0].at("name") == "wrong_scale (scale = 2)");
  CHECK(said[0].at("ruled_out_by") == "exact_zeros");
}

TEST_CASE("feedback: a refusal property whose valid case is refused is told so, not that it does not refuse",
          "[feedback]") {
  const Case valid = masked_case();
  Case faulty = valid;
  faulty.K = DMatrix::Zero(4, 3);  // d_k differs
  // The faulty case refused as it should; the valid one refused too.
  Verdict v = failed_with("dk_mismatch_refused", faulty, Outcome::make_refusal("ValueError", "shapes"));
  v.failure->answered = valid;
  auto h = attn::grader::hint_for(v);
  REQUIRE(h);
  CHECK(h->key == "refuses_valid_input");
  // The faulty case answered (not refused): the property's own hint.
  v.failure->answered.reset();
  v.failure->outcome = Outcome::make_result(DMatrix::Zero(3, 2), DMatrix::Constant(3, 4, 0.25));
  CHECK(key_of(v) == "dk_mismatch_refused");
}

TEST_CASE("feedback: every property a grade or a check runs has its own hint", "[feedback]") {
  using attn::prop::Operation;
  std::vector<attn::prop::Property> properties;
  for (const auto& id : attn::grader::graded_exercise_ids())
    for (auto& p : attn::grader::load_exercise(id).properties) properties.push_back(std::move(p));
  for (Operation op : {Operation::softmax_rows, Operation::masked_softmax, Operation::attention,
                       Operation::attention_tiled, Operation::multi_head_attention,
                       Operation::batched_attention, Operation::attention_backward})
    for (auto ff : {attn::prop::FullyForbidden::error, attn::prop::FullyForbidden::nan,
                    attn::prop::FullyForbidden::zeros})
      for (auto& p : attn::prop::kernel_properties_for(op, ff)) properties.push_back(std::move(p));
  REQUIRE(properties.size() > 20);
  std::set<std::string> without;
  for (const auto& p : properties) {
    const std::string& id = p.id;
    Verdict v = verdict_of(p);
    v.status = attn::prop::VerdictStatus::failed;
    attn::prop::Failure f;
    f.summary = "wrong";
    v.failure = f;
    const auto h = attn::grader::hint_for(v);
    if (!h || h->key != id || h->headline.empty() || h->advice.empty()) without.insert(id);
  }
  for (const auto& id : without) UNSCOPED_INFO("no hint of its own: " << id);
  CHECK(without.empty());
}
