// The feedback map: each misconception's answer on a small case is traced to
// its hint, and a correct answer is not blamed on any of them.
#include <cmath>
#include <functional>
#include <limits>

#include <catch2/catch.hpp>

#include "diagnosis/feedback.hpp"

namespace {

using attn::Index;
using attn::Mask;
using attn::prop::Case;
using attn::prop::DMatrix;
using attn::prop::Outcome;
using attn::prop::Verdict;

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

DMatrix logits(const Case& c, double scale) {
  return (c.Q * c.K.transpose()) * scale;
}

/// Softmax of each row of S over the entries with keep(i, j), others 0.
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

Verdict failed(const std::string& property, const Case& c, const DMatrix& A) {
  Verdict v;
  v.property_id = property;
  v.title = property;
  v.passed = false;
  v.counterexample = c;
  attn::prop::Failure f;
  f.summary = "wrong";
  f.outcome = Outcome::make_result(A * c.V, A);
  v.failure = f;
  return v;
}

std::string key_of(const Verdict& v) {
  const auto h = attn::grader::diagnose(v);
  return h ? h->key : std::string("none");
}

const double kScale = 0.5;  // 1/sqrt(d_k), d_k = 4

}  // namespace

TEST_CASE("feedback: a correct answer is not taken for a misconception", "[feedback]") {
  const Case c = masked_case();
  const DMatrix A = softmax(logits(c, kScale), [&](Index i, Index j) { return !(*c.mask)(i, j); });
  const auto h = attn::grader::diagnose(failed("oracle_agreement", c, A));
  REQUIRE(h);
  CHECK_FALSE(h->from_shape);  // the property's table hint
  CHECK(h->key == "oracle_agreement");
}

TEST_CASE("feedback: the mask applied after the softmax (F4)", "[feedback]") {
  const Case c = masked_case();
  DMatrix A = softmax(logits(c, kScale), [](Index, Index) { return true; });
  for (Index i = 0; i < A.rows(); ++i)
    for (Index j = 0; j < A.cols(); ++j)
      if ((*c.mask)(i, j)) A(i, j) = 0;
  const auto h = attn::grader::diagnose(failed("row_stochastic", c, A));
  REQUIRE(h);
  CHECK(h->key == "mask_after_softmax");
  CHECK(h->cites.find("Lemma 2") != std::string::npos);
  CHECK(h->cites.find("F4") != std::string::npos);
}

TEST_CASE("feedback: missing and doubled 1/sqrt(d_k)", "[feedback]") {
  const Case c = masked_case();
  auto allowed = [&](Index i, Index j) { return !(*c.mask)(i, j); };
  CHECK(key_of(failed("oracle_agreement", c, softmax(logits(c, 1.0), allowed))) ==
        "missing_scale");
  CHECK(key_of(failed("oracle_agreement", c, softmax(logits(c, 0.25), allowed))) ==
        "double_scale");
}

TEST_CASE("feedback: the softmax over the wrong axis", "[feedback]") {
  const Case c = masked_case();
  const DMatrix S = logits(c, kScale);
  const DMatrix At =
      softmax(DMatrix(S.transpose()), [&](Index i, Index j) { return !(*c.mask)(j, i); });
  CHECK(key_of(failed("row_stochastic", c, DMatrix(At.transpose()))) == "softmax_wrong_axis");
}

TEST_CASE("feedback: an inverted mask, and 0 instead of -inf", "[feedback]") {
  const Case c = masked_case();
  const DMatrix S = logits(c, kScale);
  CHECK(key_of(failed("exact_zeros", c, softmax(S, [&](Index i, Index j) {
                        return (*c.mask)(i, j);
                      }))) == "inverted_mask");
  DMatrix zeroed = S;
  for (Index i = 0; i < S.rows(); ++i)
    for (Index j = 0; j < S.cols(); ++j)
      if ((*c.mask)(i, j)) zeroed(i, j) = 0;
  CHECK(key_of(failed("exact_zeros", c, softmax(zeroed, [](Index, Index) { return true; }))) ==
        "mask_with_zero");
}

TEST_CASE("feedback: NaN at large logits is a missing max shift", "[feedback]") {
  Case c;
  c.Q.resize(1, 1);
  c.Q << 40;
  c.K.resize(2, 1);
  c.K << 20, 19;  // logits 800 and 760: exp overflows
  c.V = DMatrix::Identity(2, 2);
  DMatrix A(1, 2);
  A << std::nan(""), std::nan("");
  const auto h = attn::grader::diagnose(failed("row_stochastic", c, A));
  REQUIRE(h);
  CHECK(h->key == "no_max_shift");
  CHECK(h->cites.find("32.2.4") != std::string::npos);
  // The same NaN at small logits is not blamed on the max shift.
  c.Q << 1;
  CHECK(key_of(failed("row_stochastic", c, A)) != "no_max_shift");
}

TEST_CASE("feedback: a transposed score matrix", "[feedback]") {
  const Case c = masked_case();  // T_q = 3, T_v = 4
  const DMatrix A = DMatrix::Constant(4, 3, 0.25);
  CHECK(key_of(failed("score_shape", c, A)) == "transposed_scores");
}

TEST_CASE("feedback: a fully forbidden row answered with NaN, zeros or a uniform row",
          "[feedback]") {
  Case c = masked_case();
  (*c.mask).row(1).setConstant(true);
  const DMatrix good =
      softmax(logits(c, kScale), [&](Index i, Index j) { return !(*c.mask)(i, j) || i == 1; });
  DMatrix A = good;
  A.row(1).setConstant(std::nan(""));
  CHECK(key_of(failed("fully_forbidden_refused", c, A)) == "nan_on_fully_forbidden");
  A.row(1).setZero();
  CHECK(key_of(failed("fully_forbidden_refused", c, A)) == "mask_after_softmax");
  A.row(1).setConstant(0.25);
  CHECK(key_of(failed("fully_forbidden_refused", c, A)) == "finite_sentinel");
  A.row(1) = softmax(DMatrix(logits(c, kScale).row(1)), [](Index, Index) { return true; });
  CHECK(key_of(failed("fully_forbidden_refused", c, A)) == "mask_not_applied");
}

TEST_CASE("feedback: an epsilon in the denominator, float32, O = A K", "[feedback]") {
  Case c = masked_case();
  auto allowed = [&](Index i, Index j) { return !(*c.mask)(i, j); };
  const DMatrix good = softmax(logits(c, kScale), allowed);
  DMatrix eps = good;
  for (Index i = 0; i < eps.rows(); ++i) eps.row(i) *= 1 / (1 + 1e-9);
  CHECK(key_of(failed("row_stochastic", c, eps)) == "denominator_epsilon");

  DMatrix single = good;
  for (Index i = 0; i < good.rows(); ++i)
    for (Index j = 0; j < good.cols(); ++j) single(i, j) = static_cast<float>(good(i, j));
  CHECK(key_of(failed("oracle_agreement", c, single)) == "single_precision");

  c.V.resize(4, 4);
  c.V << 3, 1, 0, 2, 1, -1, 0.5, 0, 0, 2, 1, 1, -2, 0, 1, 1;
  Verdict v = failed("oracle_agreement", c, good);
  v.failure->outcome = Outcome::make_result(good * c.K, good);
  CHECK(key_of(v) == "output_uses_k");
}

TEST_CASE("feedback: refusals of valid input and timeouts", "[feedback]") {
  Case c = masked_case();
  Verdict v;
  v.property_id = "row_stochastic";
  v.counterexample = c;
  attn::prop::Failure f;
  f.outcome = Outcome::make_refusal("IndexError", "index 3 is out of bounds");
  v.failure = f;
  CHECK(key_of(v) == "assumes_square");  // T_q = 3 != T_v = 4
  v.failure->outcome = Outcome::make_fault("timed out after 10 s");
  CHECK(key_of(v) == "timeout");
  // Refusing is right for this property: the hint is its own, not "refuses valid input".
  v.property_id = "fully_forbidden_refused";
  v.failure->outcome = Outcome::make_refusal("ValueError", "wrong type");
  CHECK(key_of(v) == "fully_forbidden_refused");
}

TEST_CASE("feedback: passing and skipped verdicts have no hint; every property has one",
          "[feedback]") {
  Verdict v;
  v.property_id = "row_stochastic";
  v.passed = true;
  CHECK_FALSE(attn::grader::diagnose(v));
  v.passed = false;
  v.skipped = true;
  CHECK_FALSE(attn::grader::diagnose(v));
  v.skipped = false;
  for (const char* id : {"textbook_example", "score_shape", "dk_mismatch_refused",
                         "row_stochastic", "exact_zeros", "fully_forbidden_refused",
                         "oracle_agreement", "shift_invariance", "permutation_equivariance",
                         "masked_equals_deleted", "uniform_when_tied", "scale_off",
                         "non_finite_refused", "shape_mismatch_refused", "tiled_equals_naive",
                         "heads_in_order", "causal_mask_matches_definition",
                         "padding_mask_matches_definition", "answers"}) {
    v.property_id = id;
    const auto h = attn::grader::diagnose(v);
    INFO(id);
    REQUIRE(h);
    CHECK_FALSE(h->advice.empty());
    CHECK_FALSE(h->cites.empty());
  }
}

TEST_CASE("feedback: format_hint wraps and cites", "[feedback]") {
  attn::grader::Hint h{"k", "the mask is applied after the softmax",
                       std::string(200, 'x') + " and more words here", "Lemma 2", true};
  const std::string text = attn::grader::format_hint(h, "  ", 60);
  CHECK(text.rfind("  hint: the mask is applied after the softmax.", 0) == 0);
  CHECK(text.find("(Lemma 2)") != std::string::npos);
  CHECK(text.back() == '\n');
}

TEST_CASE("feedback: a finite stand-in for -inf, seen once the logits are below it", "[feedback]") {
  // Every allowed logit far below -1e4: Q <= -2^15 and K >= 2^15 entrywise.
  Case c = masked_case();
  c.Q = -(c.Q.array().abs() + 1.0) * 0x1p15;
  c.K = (c.K.array().abs() + 1.0) * 0x1p15;
  DMatrix filled = logits(c, kScale);
  for (Index i = 0; i < filled.rows(); ++i)
    for (Index j = 0; j < filled.cols(); ++j)
      if ((*c.mask)(i, j)) filled(i, j) = -1e4;
  const DMatrix A = softmax(filled, [](Index, Index) { return true; });
  CHECK(key_of(failed("exact_zeros", c, A)) == "mask_with_finite_value");
  // The truly inverted mask on the same case is still named as such.
  const DMatrix inverted = softmax(logits(c, kScale), [&](Index i, Index j) { return (*c.mask)(i, j); });
  CHECK(key_of(failed("exact_zeros", c, inverted)) == "inverted_mask");
}

TEST_CASE("feedback: a valid case refused where a mask row forbids nothing is an inverted mask",
          "[feedback]") {
  Case c = masked_case();
  (*c.mask).row(1).setConstant(false);  // row 1 forbids nothing: inverted, it forbids everything
  Verdict v = failed("oracle_agreement", c, DMatrix::Zero(3, 4));
  v.failure->outcome = Outcome::make_refusal("ValueError", "a row has every key forbidden");
  CHECK(key_of(v) == "inverted_mask");
  // Without such a row the refusal is not blamed on the mask (here T_q = 3, T_v = 4).
  Case d = masked_case();
  Verdict w = failed("oracle_agreement", d, DMatrix::Zero(3, 4));
  w.failure->outcome = Outcome::make_refusal("ValueError", "no");
  CHECK(key_of(w) == "assumes_square");
}

TEST_CASE("feedback: the weights returned transposed, also when T_q = T_v", "[feedback]") {
  const Case c = masked_case();  // T_q = 3, T_v = 4
  const DMatrix W = softmax(logits(c, kScale), [&](Index i, Index j) { return !(*c.mask)(i, j); });
  // The reply decoder keeps a wrongly shaped answer in the fault.
  Verdict v = failed("score_shape", c, W);
  v.failure->outcome =
      Outcome::make_fault("malformed reply: wrong shape: A is 4 x 3, expected 3 x 4");
  v.failure->outcome->O = W * c.V;
  v.failure->outcome->A = W.transpose();
  CHECK(key_of(v) == "transposed_weights");
  // Wrongly shaped weights that are not the right ones transposed: the scores' shape.
  v.failure->outcome->A = DMatrix::Constant(4, 3, 0.25);
  CHECK(key_of(v) == "transposed_scores");
  // A fault that decoded nothing stays a fault.
  v.failure->outcome = Outcome::make_fault("crashed with signal 11 (SIGSEGV)");
  CHECK(key_of(v) == "fault");

  // T_q = T_v = 3: only the values tell.
  Case sq = masked_case();
  sq.K = DMatrix(c.K.topRows(3));
  sq.V = DMatrix(c.V.topRows(3));
  sq.mask = Mask(c.mask->leftCols(3));
  const DMatrix Ws =
      softmax(logits(sq, kScale), [&](Index i, Index j) { return !(*sq.mask)(i, j); });
  CHECK(key_of(failed("row_stochastic", sq, DMatrix(Ws.transpose()))) == "transposed_weights");
  CHECK(key_of(failed("oracle_agreement", sq, Ws)) == "oracle_agreement");
  // Equal logits and no mask: A^T = A, so a transposed A is not told apart (nor blamed).
  Case tied = sq;
  tied.Q.setZero();
  tied.mask.reset();
  const DMatrix U = DMatrix::Constant(3, 3, 1.0 / 3);
  CHECK(key_of(failed("oracle_agreement", tied, DMatrix(U.transpose()))) != "transposed_weights");
}

TEST_CASE("feedback: the softmax over every key, renormalised after zeroing (F4)", "[feedback]") {
  // Logits -800 and 800 in row 0, whose larger one is forbidden: exp(-1600)
  // underflows, so renormalising gives 0/0. Row 1 is ordinary.
  Case c;
  c.Q.resize(2, 1);
  c.Q << 40, 1;
  c.K.resize(2, 1);
  c.K << -20, 20;
  c.V = DMatrix::Identity(2, 2);
  Mask m(2, 2);
  m << false, true, true, false;
  c.mask = m;
  DMatrix A(2, 2);
  A << std::nan(""), std::nan(""), 0, 1;
  const auto h = attn::grader::diagnose(failed("row_stochastic", c, A));
  REQUIRE(h);
  CHECK(h->key == "renormalised_after_softmax");
  CHECK(h->advice.find("1600 above") != std::string::npos);
  CHECK(h->cites.find("F4") != std::string::npos);
  // The right answer (row 0 all on its one allowed key) is not blamed on it.
  DMatrix right(2, 2);
  right << 1, 0, 0, 1;
  CHECK(key_of(failed("oracle_agreement", c, right)) == "oracle_agreement");
  // Without the forbidden key above the allowed one the same NaN is not this misconception.
  (*c.mask)(0, 1) = false;
  (*c.mask)(0, 0) = true;
  CHECK(key_of(failed("row_stochastic", c, A)) != "renormalised_after_softmax");
}

namespace {

/// One query, keys with logits 0, 1, 2 (d_k = 1), V = [1; 2; 4]; tiles of
/// `tile_k` keys.
Case tiled_case(Index tile_k) {
  Case c;
  c.op = attn::prop::Operation::attention_tiled;
  c.Q = DMatrix::Ones(1, 1);
  c.K.resize(3, 1);
  c.K << 0, 1, 2;
  c.V.resize(3, 1);
  c.V << 1, 2, 4;
  c.tile_q = 1;
  c.tile_k = tile_k;
  return c;
}

Verdict failed_tiled(const Case& c, double O, double logsumexp) {
  Verdict v;
  v.property_id = "tiled_equals_naive";
  v.title = v.property_id;
  v.counterexample = c;
  attn::prop::Failure f;
  f.summary = "wrong";
  f.outcome = Outcome::make_result(DMatrix::Constant(1, 1, O), DMatrix());
  f.outcome->logsumexp = DMatrix::Constant(1, 1, logsumexp);
  v.failure = f;
  return v;
}

}  // namespace

TEST_CASE("feedback: the tiled kernel's misconceptions (T1)", "[feedback]") {
  const double e = std::exp(1.0), e2 = std::exp(2.0);
  // Right: O = (1 + 2e + 4e^2) / (1 + e + e^2), logsumexp = log(1 + e + e^2).
  const double right_O = (1 + 2 * e + 4 * e2) / (1 + e + e2), right_lse = std::log(1 + e + e2);
  for (Index tile_k : {1, 2, 3, 4}) {
    INFO("tile_k " << tile_k);
    CHECK(key_of(failed_tiled(tiled_case(tile_k), right_O, right_lse)) == "tiled_equals_naive");
  }
  // Tiles of one key, logits rising: without the rescale every key weighs exp(0) = 1.
  const auto no_rescale =
      attn::grader::diagnose(failed_tiled(tiled_case(1), 7.0 / 3, 2 + std::log(3.0)));
  REQUIRE(no_rescale);
  CHECK(no_rescale->key == "tiled_no_rescale");
  CHECK(no_rescale->advice.find("key tile [1, 2)") != std::string::npos);
  // Tiles of two: the last tile (key 2) dropped leaves attention over keys 0 and 1.
  const Verdict dropped = failed_tiled(tiled_case(2), (1 + 2 * e) / (1 + e), std::log(1 + e));
  CHECK(key_of(dropped) == "tiled_last_tile_dropped");
  // The same answer where tile_k divides T_v is not a dropped tile.
  CHECK(key_of(failed_tiled(tiled_case(3), (1 + 2 * e) / (1 + e), std::log(1 + e))) !=
        "tiled_last_tile_dropped");
  // Key 0 forbidden, tiles of one: the wholly forbidden tile [0, 1) gives NaN.
  Case masked = tiled_case(1);
  masked.mask = Mask::Constant(1, 3, false);
  (*masked.mask)(0, 0) = true;
  const double nan = std::nan("");
  CHECK(key_of(failed_tiled(masked, nan, nan)) == "tiled_forbidden_tile_nan");
  // NaN with no wholly forbidden tile (one tile of three keys) is not that.
  masked.tile_k = 3;
  CHECK(key_of(failed_tiled(masked, nan, nan)) != "tiled_forbidden_tile_nan");
}

TEST_CASE("feedback: a refusal is read against the case it answers (masked = deleted, T1)",
          "[feedback]") {
  // masked_equals_deleted compares row 0 (keys 0-2 of 4 forbidden, tiles of
  // two) with a case of its one allowed key, still in tiles of two: a kernel
  // that drops the last partial tile sees no allowed key there, and refuses.
  Case c = tiled_case(2);
  c.K.resize(4, 1);
  c.K << 0, 1, 2, 3;
  c.V.resize(4, 1);
  c.V << 1, 2, 4, 8;
  c.mask = Mask::Constant(1, 4, true);
  (*c.mask)(0, 3) = false;
  Case deleted = c;
  deleted.K = DMatrix(c.K.bottomRows(1));
  deleted.V = DMatrix(c.V.bottomRows(1));
  deleted.mask.reset();
  Verdict v = failed_tiled(c, 0, 0);
  v.property_id = "masked_equals_deleted";
  v.failure->outcome = Outcome::make_refusal("ValueError", "query row 0 has every key forbidden");
  v.failure->answered = deleted;
  CHECK(key_of(v) == "tiled_last_tile_dropped");
  // Read against the counterexample (1 x 4, tile_k divides T_v) it says nothing of tiles.
  v.failure->answered.reset();
  CHECK(key_of(v) != "tiled_last_tile_dropped");
}

// --- multi-head attention (M1) and the masks (C1) -------------------------------

namespace {

/// T = 3, d_model = 2, h = 2 heads of d_k = 1, d_v = 1, d_out = 2, causal mask.
Case multi_head_case() {
  Case c;
  c.op = attn::prop::Operation::multi_head_attention;
  c.X.resize(3, 2);
  c.X << 1, 0.5, -1, 2, 0.25, -0.5;
  for (int h = 0; h < 2; ++h) {
    attn::prop::HeadProjections p;
    p.W_Q.resize(2, 1);
    p.W_K.resize(2, 1);
    p.W_V.resize(2, 1);
    p.W_Q << 1 + h, -0.5;
    p.W_K << 0.5, 1 - h;
    p.W_V << 2 - h, 1 + 2 * h;
    c.heads.push_back(p);
  }
  c.W_O.resize(2, 2);
  c.W_O << 1, -2, 0.5, 3;
  Mask m(3, 3);
  m << false, true, true, false, false, true, false, false, false;
  c.mask = m;
  return c;
}

/// One head's output with the logits scaled by `scale` and the mask applied or not.
DMatrix head(const Case& c, int h, double scale, bool masked) {
  const auto& p = c.heads[std::size_t(h)];
  const DMatrix S = (c.X * p.W_Q) * (c.X * p.W_K).transpose() * scale;
  const DMatrix A = softmax(S, [&](Index i, Index j) { return !(masked && (*c.mask)(i, j)); });
  return A * (c.X * p.W_V);
}

Verdict failed_with_O(const std::string& property, const Case& c, const DMatrix& O) {
  Verdict v = failed(property, c, DMatrix());
  v.failure->outcome = Outcome::make_result(O, DMatrix());
  return v;
}

DMatrix concat(const DMatrix& a, const DMatrix& b) {
  DMatrix C(a.rows(), a.cols() + b.cols());
  C << a, b;
  return C;
}

Verdict failed_mask(const std::string& property, const Case& c, const Mask& built) {
  Verdict v;
  v.property_id = property;
  v.counterexample = c;
  attn::prop::Failure f;
  f.summary = "wrong";
  Outcome o = Outcome::make_result(DMatrix(), DMatrix());
  o.mask = built;
  f.outcome = o;
  v.failure = f;
  return v;
}

Mask rule(Index T_q, Index T_v, const std::function<bool(Index, Index)>& forbid) {
  Mask M(T_q, T_v);
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) M(i, j) = forbid(i, j);
  return M;
}

}  // namespace

TEST_CASE("feedback: multi-head misconceptions (M1)", "[feedback][M1]") {
  const Case c = multi_head_case();
  const double s = 1.0;  // 1/sqrt(d_k), d_k = 1
  const DMatrix O1 = head(c, 0, s, true), O2 = head(c, 1, s, true);
  // The right answer is not blamed on any misconception.
  const auto right = attn::grader::diagnose(failed_with_O("oracle_agreement", c, concat(O1, O2) * c.W_O));
  REQUIRE(right);
  CHECK_FALSE(right->from_shape);
  CHECK(key_of(failed_with_O("oracle_agreement", c, concat(O2, O1) * c.W_O)) == "heads_out_of_order");
  CHECK(key_of(failed_with_O("oracle_agreement", c, (O1 + O2) * c.W_O.topRows(1))) ==
        "one_wo_block_per_head");
  const double by_d_model = 1.0 / std::sqrt(2.0);
  CHECK(key_of(failed_with_O("oracle_agreement", c,
                             concat(head(c, 0, by_d_model, true), head(c, 1, by_d_model, true)) *
                                 c.W_O)) == "scale_by_d_model");
  CHECK(key_of(failed_with_O("oracle_agreement", c,
                             concat(head(c, 0, s, false), head(c, 1, s, false)) * c.W_O)) ==
        "mask_not_forwarded");
}

TEST_CASE("feedback: mask-building mistakes (C1)", "[feedback][C1]") {
  Case causal;
  causal.op = attn::prop::Operation::causal_mask;
  causal.mask_shape.T_q = 3;
  causal.mask_shape.T_v = 5;
  causal.mask_shape.bottom_right = true;  // key j forbidden when j > i + 2
  const std::string p = "causal_mask_matches_definition";
  const Mask right = rule(3, 5, [](Index i, Index j) { return j > i + 2; });
  CHECK(key_of(failed_mask(p, causal, right)) == p);  // no mistake recognised in the right mask
  CHECK(key_of(failed_mask(p, causal, rule(3, 5, [](Index i, Index j) { return j > i; }))) ==
        "causal_alignment_swapped");
  CHECK(key_of(failed_mask(p, causal, rule(3, 5, [](Index i, Index j) { return j >= i + 2; }))) ==
        "causal_diagonal_forbidden");
  CHECK(key_of(failed_mask(p, causal, rule(3, 5, [](Index i, Index j) { return j <= i + 2; }))) ==
        "mask_polarity_inverted");
  CHECK(key_of(failed_mask(p, causal, rule(3, 5, [](Index i, Index j) { return j < i + 2; }))) ==
        "causal_triangle_reversed");
  // At 1x1 a forbidden diagonal and an inverted mask are the same [x]: both are named.
  causal.mask_shape = {1, 1, false, 0};
  const auto tiny = attn::grader::diagnose(failed_mask(p, causal, rule(1, 1, [](Index, Index) { return true; })));
  REQUIRE(tiny);
  CHECK(tiny->key == "mask_mistake_ambiguous");
  CHECK(tiny->advice.find("causal_diagonal_forbidden") != std::string::npos);
  CHECK(tiny->advice.find("mask_polarity_inverted") != std::string::npos);

  Case padding;
  padding.op = attn::prop::Operation::padding_mask;
  padding.mask_shape = {4, 5, false, 2};  // keys 2, 3, 4 are padding
  const std::string q = "padding_mask_matches_definition";
  CHECK(key_of(failed_mask(q, padding, rule(4, 5, [](Index, Index j) { return j >= 2; }))) == q);
  CHECK(key_of(failed_mask(q, padding, rule(4, 5, [](Index, Index j) { return j > 2; }))) ==
        "padding_off_by_one");
  CHECK(key_of(failed_mask(q, padding, rule(4, 5, [](Index i, Index) { return i >= 2; }))) ==
        "padding_on_queries");
  CHECK(key_of(failed_mask(q, padding, rule(4, 5, [](Index, Index) { return false; }))) ==
        "padding_not_applied");
}
