// The properties must fail wrong implementations: a suite that passes
// everything proves nothing. Each subject here carries one known mistake.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <sstream>

#include "attn/attn.hpp"
#include "attn/prop/catalog.hpp"
#include "attn/prop/lib_subject.hpp"

using namespace attn::prop;
using attn::Index;

namespace {

/// A double-precision subject given by a function.
class FnSubject : public Subject {
 public:
  explicit FnSubject(std::function<Outcome(const Case&)> f, Operation op = Operation::attention)
      : f_(std::move(f)), op_(op) {}
  std::string name() const override { return "test subject"; }
  Precision precision() const override { return Precision::of_double(); }
  bool supports(Operation op) const override { return op == op_; }
  Outcome run(const Case& c) override { return f_(c); }

 private:
  std::function<Outcome(const Case&)> f_;
  Operation op_;
};

/// Softmax over every key, then zero the forbidden weights (F4's bug). A NaN
/// or Inf input is refused, as the library refuses it (attn::scores).
Outcome post_softmax_mask(const Case& c) {
  attn::Matrix<double> S;
  try {
    S = attn::scores<double>(c.Q, c.K);
  } catch (const attn::NonFiniteInputError& e) {
    return Outcome::make_refusal("NonFiniteInputError", e.what());
  }
  attn::Matrix<double> A = attn::softmax_rows<double>(S);
  if (c.mask)
    for (Index i = 0; i < A.rows(); ++i)
      for (Index j = 0; j < A.cols(); ++j)
        if ((*c.mask)(i, j)) A(i, j) = 0.0;
  return Outcome::make_result(A * c.V, A);
}

Verdict run(const Property& p, Subject& s) {
  RunConfig cfg;
  cfg.cases = 200;
  return run_property(p, s, cfg);
}

}  // namespace

TEST_CASE("post-softmax masking (F4) fails row_stochastic with a small counterexample", "[mutants]") {
  FnSubject s(post_softmax_mask);
  const Verdict v = run(row_stochastic(), s);
  REQUIRE_FALSE(v.passed());
  REQUIRE(v.counterexample);
  REQUIRE(v.failure);
  REQUIRE(v.failure->worst);
  CHECK(v.failure->worst->matrix == "row sum of A");
  CHECK(v.failure->worst->actual < 1.0);
  // Shrinking reaches a small case: the F4 bug needs only one masked key.
  CHECK(v.counterexample->Q.rows() <= 2);
  CHECK(v.counterexample->K.rows() <= 2);
  // One fault, one charge (properties/README.md): each masked row is exactly
  // the softmax over every key with the forbidden weights zeroed, a row
  // row_stochastic charges (a row of zeros too, where a forbidden key held
  // all but an underflowing share of the mass); oracle_agreement leaves such
  // rows to it.
  {
    const Verdict o = run(oracle_agreement(), s);
    INFO((o.failure ? o.failure->summary : std::string("no failure")));
    CHECK(o.passed());
  }
  // Post-softmax zeroing does produce exact zeros: that property alone cannot see it.
  CHECK(run(exact_zeros(), s).passed());
}

namespace {

/// One query, two keys, key 0 forbidden: S = [q k0, q k1] (d_k = 1).
Case two_key_case(double q, double k0, double k1) {
  Case c;
  c.op = Operation::attention;
  c.Q = DMatrix::Constant(1, 1, q);
  c.K = DMatrix(2, 1);
  c.K << k0, k1;
  c.V = DMatrix(2, 1);
  c.V << 3.0, -2.0;
  attn::Mask m(1, 2);
  m << true, false;
  c.mask = m;
  return c;
}

}  // namespace

TEST_CASE("oracle_agreement leaves a row masked after the softmax to row_stochastic, and only such a row",
          "[mutants]") {
  // Logits [1, 0]: masking after the softmax answers A = [0, 1/(1+e)].
  const Case c = two_key_case(1.0, 1.0, 0.0);
  FnSubject post(post_softmax_mask);
  {
    const auto f = oracle_agreement().check(post, c);
    INFO((f ? f->summary : std::string("no failure")));
    CHECK_FALSE(f);
    CHECK(row_stochastic().check(post, c));
  }
  // The same sum, 1/(1+e), on weights that are not the unmasked softmax's
  // (O's row likewise): not that fault, oracle_agreement's.
  FnSubject halved([](const Case& k) {
    Outcome o = post_softmax_mask(k);
    o.A(0, 1) = 0.5;
    o.O = o.A * k.V;
    return o;
  });
  CHECK(oracle_agreement().check(halved, c));
  // A zero row: the forbidden key holds all but 1e-695 of the mass (logits
  // [1600, 0]), so the unmasked softmax's allowed weight underflows to 0 in
  // double: still exactly masking after the softmax, row_stochastic's.
  const Case dominated = two_key_case(40.0, 40.0, 0.0);
  {
    const Outcome o = post_softmax_mask(dominated);
    REQUIRE(o.A(0, 1) == 0.0);
    CHECK_FALSE(oracle_agreement().check(post, dominated));
    CHECK(row_stochastic().check(post, dominated));
  }
  // A zero row where the allowed key holds mass (logits [1, 0]: a guard's
  // 0/0, a floor): not that fault, oracle_agreement's.
  FnSubject zeros([](const Case& k) {
    Outcome o = post_softmax_mask(k);
    o.A.setZero();
    o.O.setZero();
    return o;
  });
  CHECK(oracle_agreement().check(zeros, c));
}

TEST_CASE("NaN, zeros or a uniform row for a fully forbidden row fail the refusal property", "[mutants]") {
  for (int variant = 0; variant < 3; ++variant) {
    FnSubject s([variant](const Case& c) {
      attn::Matrix<double> S = attn::scores<double>(c.Q, c.K);
      attn::Matrix<double> A(S.rows(), S.cols());
      for (Index i = 0; i < S.rows(); ++i) {
        const bool all = c.mask && c.mask->row(i).all();
        if (all) {
          const double fill = variant == 0 ? std::numeric_limits<double>::quiet_NaN()
                              : variant == 1 ? 0.0 : 1.0 / double(S.cols());
          A.row(i).setConstant(fill);
          continue;
        }
        attn::Mask row_mask = c.mask ? attn::Mask(c.mask->row(i)) : attn::Mask::Constant(1, S.cols(), false);
        A.row(i) = attn::masked_softmax<double>(S.row(i), row_mask);
      }
      return Outcome::make_result(A * c.V, A);
    });
    const Verdict v = run(fully_forbidden_refused(), s);
    INFO("variant " << variant);
    CHECK_FALSE(v.passed());
    REQUIRE(v.failure);
    CHECK(v.failure->marked_row >= 0);
  }
}

TEST_CASE("a subject that refuses every case earns nothing for refusing the forbidden row",
          "[mutants]") {
  for (Operation op : {Operation::attention, Operation::softmax_rows, Operation::masked_softmax,
                       Operation::multi_head_attention}) {
    INFO(operation_name(op));
    FnSubject skeleton([](const Case&) { return Outcome::make_refusal("NotImplementedError", "todo"); },
                       op);
    const Verdict v = run(fully_forbidden_refused(op), skeleton);
    CHECK_FALSE(v.passed());
    REQUIRE(v.failure);
    CHECK_THAT(v.failure->summary, Catch::Contains("also the same case with that row's keys allowed"));
    // The library refuses only the fully forbidden row.
    LibSubject<double> lib;
    CHECK(run(fully_forbidden_refused(op), lib).passed());
  }
}

TEST_CASE("a refusal property needs an answer to the valid case, not a correct one", "[mutants]") {
  // Refuses when the library refuses; on a valid input: a crash (a fault,
  // like returning None or a segfault), or a wrong answer (weights all 0).
  // The crash fails every refusal property; the wrong numbers are the value
  // properties' to judge, so they are not charged to the refusals as well.
  for (int variant = 0; variant < 2; ++variant) {
    INFO((variant == 0 ? "crash on valid input" : "zeros on valid input"));
    LibSubject<double> lib;
    FnSubject subject([&lib, variant](const Case& c) {
      const Outcome o = lib.run(c);
      if (o.kind != Outcome::Kind::result) return o;
      if (variant == 0) return Outcome::make_fault("the process crashed (signal 11)");
      return Outcome::make_result(attn::Matrix<double>::Zero(o.O.rows(), o.O.cols()),
                                  attn::Matrix<double>::Zero(o.A.rows(), o.A.cols()));
    });
    for (const Property& p : {fully_forbidden_refused(), dk_mismatch_refused(), non_finite_refused(),
                              shape_mismatch_refused()}) {
      INFO(p.id);
      const Verdict v = run(p, subject);
      CHECK(run(p, lib).passed());
      if (variant == 1) {
        CHECK(v.passed());
        continue;
      }
      CHECK_FALSE(v.passed());
      REQUIRE(v.failure);
      CHECK_THAT(v.failure->summary, Catch::Contains("gave no answer"));
    }
    if (variant == 1) CHECK_FALSE(run(oracle_agreement(), subject).passed());
  }
}

TEST_CASE("a refusal property's counterexample is the case its answer is to",
          "[mutants]") {
  // Refuses every faulty input as the library does and crashes on every
  // valid one: each refusal property fails on its valid case, and the
  // counterexample shown is that valid case (never the refused input, whose
  // reproduction would raise).
  LibSubject<double> lib;
  FnSubject crashes([&lib](const Case& c) {
    const Outcome o = lib.run(c);
    if (o.kind != Outcome::Kind::result) return o;
    return Outcome::make_fault("the process crashed (signal 11)");
  });
  for (const Property& p : {fully_forbidden_refused(), dk_mismatch_refused(), non_finite_refused(),
                            shape_mismatch_refused()}) {
    INFO(p.id);
    const Verdict v = run(p, crashes);
    REQUIRE_FALSE(v.passed());
    REQUIRE(v.failure);
    REQUIRE(v.counterexample);
    const Case& c = *v.counterexample;
    CHECK_THAT(v.failure->summary, Catch::Contains("refused") && Catch::Contains("gave no answer"));
    CHECK(lib.run(c).kind == Outcome::Kind::result);  // a valid case: it has an answer
    CHECK(c.Q.cols() == c.K.cols());
    CHECK(c.K.rows() == c.V.rows());
    CHECK(c.Q.allFinite());
    CHECK(c.K.allFinite());
    CHECK(c.V.allFinite());
    if (c.mask) {
      CHECK(c.mask->rows() == c.Q.rows());
      CHECK(c.mask->cols() == c.K.rows());
      for (Index i = 0; i < c.mask->rows(); ++i) CHECK_FALSE(c.mask->row(i).all());
    }
    REQUIRE(v.failure->outcome);
    CHECK(v.failure->outcome->kind == Outcome::Kind::fault);
    CHECK_FALSE(v.failure->shown);  // moved into the counterexample
  }
  // Answers every input instead of refusing: the counterexample is the
  // faulty input that was sent (for shape_mismatch_refused, not the valid
  // case it was made from).
  FnSubject answers_all([](const Case& c) {
    const Index T_q = c.Q.rows(), T_v = c.K.rows();
    return Outcome::make_result(attn::Matrix<double>::Zero(T_q, c.V.cols()),
                                attn::Matrix<double>::Constant(T_q, T_v, 1.0 / double(T_v)));
  });
  const Verdict v = run(shape_mismatch_refused(), answers_all);
  REQUIRE_FALSE(v.passed());
  REQUIRE(v.counterexample);
  const Case& c = *v.counterexample;
  INFO(v.failure->summary);
  CHECK_THAT(v.failure->summary, Catch::Contains("answered instead of refusing"));
  const bool mismatched = c.K.rows() != c.V.rows() ||
                          (c.mask && (c.mask->rows() != c.Q.rows() || c.mask->cols() != c.K.rows()));
  CHECK(mismatched);
}

TEST_CASE("a tiny weight at a forbidden key is charged to exact_zeros alone", "[mutants]") {
  // Eigen 3.4's vectorised exp(-inf) gives 5.56e-309, not 0: the forbidden
  // weights are exact_zeros' to judge (Lemma 2); the allowed weights and O
  // are right, so oracle_agreement and the refusal of a fully forbidden row
  // (whose valid case has forbidden keys too) pass.
  LibSubject<double> lib;
  FnSubject leaky([&lib](const Case& c) {
    Outcome o = lib.run(c);
    if (o.kind != Outcome::Kind::result || !c.mask) return o;
    for (Index i = 0; i < o.A.rows(); ++i)
      for (Index j = 0; j < o.A.cols(); ++j)
        if ((*c.mask)(i, j)) o.A(i, j) = 5.56e-309;
    return o;
  });
  const Verdict v = run(exact_zeros(), leaky);
  REQUIRE_FALSE(v.passed());
  REQUIRE(v.failure);
  CHECK_THAT(v.failure->summary, Catch::Contains("it must be exactly 0"));
  CHECK(run(oracle_agreement(), leaky).passed());
  CHECK(run(fully_forbidden_refused(), leaky).passed());
}

TEST_CASE("a tiny forbidden weight is not charged again through O or the row sums", "[mutants]") {
  // log(allowed + 1e-300) added to the logits: a forbidden weight of about
  // 1e-300 times e^(its logit's lead), O and the row sums off by as little.
  LibSubject<double> lib;
  FnSubject log_mask([&lib](const Case& c) {
    Outcome o = lib.run(c);
    if (o.kind != Outcome::Kind::result || !c.mask) return o;
    for (Index i = 0; i < o.A.rows(); ++i)
      for (Index j = 0; j < o.A.cols(); ++j)
        if ((*c.mask)(i, j)) {
          o.A(i, j) = 5e-51;
          for (Index l = 0; l < o.O.cols(); ++l) o.O(i, l) += 5e-51 * c.V(j, l);
        }
    return o;
  });
  CHECK_FALSE(run(exact_zeros(), log_mask).passed());
  CHECK(run(oracle_agreement(), log_mask).passed());
  CHECK(run(row_stochastic(), log_mask).passed());
}

TEST_CASE("a wrongly shaped O leaves the properties of A judged", "[mutants]") {
  // A right, O returned transposed (d_v x T_q): the shape and the values of
  // O fail, the statements about A alone (its zeros, its row sums) pass.
  LibSubject<double> lib;
  FnSubject transposed([&lib](const Case& c) {
    Outcome o = lib.run(c);
    if (o.kind != Outcome::Kind::result) return o;
    o.O = DMatrix(o.O.transpose());
    return o;
  });
  CHECK(run(exact_zeros(), transposed).passed());
  CHECK(run(row_stochastic(), transposed).passed());
  CHECK(run(fully_forbidden_refused(), transposed).passed());
  CHECK(run(dk_mismatch_refused(), transposed).passed());
  CHECK_FALSE(run(score_shape(), transposed).passed());
  CHECK_FALSE(run(oracle_agreement(), transposed).passed());
}

TEST_CASE("an exact comparison says the value it must be, not an error bound of 0",
          "[mutants]") {
  // A row with one allowed key has the weight exactly 1 (TOLERANCE.md (8));
  // this subject gives 1 - 2^-40 there.
  LibSubject<double> lib;
  FnSubject off_by_a_bit([&lib](const Case& c) {
    Outcome o = lib.run(c);
    if (o.kind != Outcome::Kind::result) return o;
    for (Index i = 0; i < o.A.rows(); ++i)
      for (Index j = 0; j < o.A.cols(); ++j)
        if (o.A(i, j) == 1.0) o.A(i, j) = 1.0 - std::ldexp(1.0, -40);
    return o;
  });
  const Verdict v = run(oracle_agreement(), off_by_a_bit);
  REQUIRE_FALSE(v.passed());
  REQUIRE(v.failure);
  INFO(v.failure->summary);
  CHECK_THAT(v.failure->summary, Catch::Contains("must be exactly 1"));
  CHECK_THAT(v.failure->summary, !Catch::Contains("error bound 0 "));
}

TEST_CASE("imprecise subjects are caught by the oracle within the error bound", "[mutants]") {
  SECTION("no 1/sqrt(d_k) scale") {
    FnSubject s([](const Case& c) {
      attn::Matrix<double> S = c.Q * c.K.transpose();
      attn::Matrix<double> A = c.mask ? attn::masked_softmax<double>(S, *c.mask) : attn::softmax_rows<double>(S);
      return Outcome::make_result(A * c.V, A);
    });
    CHECK_FALSE(run(oracle_agreement(), s).passed());
    CHECK_FALSE(run(textbook_example(), s).passed());
  }
  SECTION("declares double but computes in float") {
    FnSubject s([](const Case& c) {
      const auto r = attn::attention<float>(c.Q.cast<float>(), c.K.cast<float>(), c.V.cast<float>(), c.mask);
      return Outcome::make_result(r.O.cast<double>(), r.A.cast<double>());
    });
    CHECK_FALSE(run(oracle_agreement(), s).passed());
    CHECK_FALSE(run(row_stochastic(), s).passed());
  }
  SECTION("answers a d_k mismatch by truncating") {
    FnSubject s([](const Case& c) {
      const Index d = std::min(c.Q.cols(), c.K.cols());
      const auto r = attn::attention<double>(c.Q.leftCols(d), c.K.leftCols(d), c.V, c.mask);
      return Outcome::make_result(r.O, r.A);
    });
    CHECK_FALSE(run(dk_mismatch_refused(), s).passed());
  }
  SECTION("transposed weights: wrong shape when T_q != T_v") {
    FnSubject s([](const Case& c) {
      const auto r = attn::attention<double>(c.Q, c.K, c.V, c.mask);
      return Outcome::make_result(r.O, r.A.transpose());
    });
    CHECK_FALSE(run(score_shape(), s).passed());
  }
}

namespace {

/// Row softmax of S with -inf where masked, written out so one step can be broken.
attn::Matrix<double> softmax_variant(const Case& c, bool shift, double epsilon, bool invert_mask) {
  attn::Matrix<double> S = c.S;
  if (c.mask)
    for (Index i = 0; i < S.rows(); ++i)
      for (Index j = 0; j < S.cols(); ++j)
        if ((*c.mask)(i, j) != invert_mask) S(i, j) = -std::numeric_limits<double>::infinity();
  attn::Matrix<double> A(S.rows(), S.cols());
  for (Index i = 0; i < S.rows(); ++i) {
    const double m = shift ? S.row(i).maxCoeff() : 0.0;
    A.row(i) = (S.row(i).array() - m).exp();
    A.row(i) /= A.row(i).sum() + epsilon;
  }
  return A;
}

}  // namespace

TEST_CASE("softmax mistakes are caught on the logits", "[mutants]") {
  SECTION("no max subtraction overflows under a row shift of 1000") {
    FnSubject s([](const Case& c) { return Outcome::make_result({}, softmax_variant(c, false, 0, false)); },
                Operation::masked_softmax);
    CHECK_FALSE(run(shift_invariance(Operation::masked_softmax), s).passed());
    CHECK_FALSE(run(oracle_agreement(Operation::masked_softmax), s).passed());
  }
  SECTION("an epsilon of 1e-12 in the denominator") {
    FnSubject s([](const Case& c) { return Outcome::make_result({}, softmax_variant(c, true, 1e-12, false)); },
                Operation::masked_softmax);
    CHECK_FALSE(run(oracle_agreement(Operation::masked_softmax), s).passed());
    // A row with one allowed key is exact for every correct algorithm
    // (TOLERANCE.md (8)): the epsilon fails there as an exact comparison.
    const Verdict v = run(row_stochastic(Operation::masked_softmax), s);
    REQUIRE_FALSE(v.passed());
    REQUIRE(v.failure);
    REQUIRE(v.failure->worst);
    INFO(v.failure->summary);
    CHECK(v.failure->worst->bound == 0);
    CHECK(v.failure->worst->actual < 1.0);
  }
  SECTION("mask polarity inverted (true read as 'may attend')") {
    FnSubject s([](const Case& c) { return Outcome::make_result({}, softmax_variant(c, true, 0, true)); },
                Operation::masked_softmax);
    CHECK_FALSE(run(exact_zeros(Operation::masked_softmax), s).passed());
  }
  SECTION("softmax over the wrong axis") {
    FnSubject s([](const Case& c) {
      Case t = c;
      t.S = c.S.transpose();
      if (c.mask) t.mask = attn::Mask(c.mask->transpose());
      return Outcome::make_result({}, softmax_variant(t, true, 0, false).transpose());
    }, Operation::masked_softmax);
    CHECK_FALSE(run(row_stochastic(Operation::masked_softmax), s).passed());
  }
  SECTION("the right numbers but an untyped refusal") {
    FnSubject s([](const Case& c) {
      LibSubject<double> lib;
      Outcome o = lib.run(c);
      if (o.kind == Outcome::Kind::refusal) o.error_type = "std::runtime_error";
      return o;
    }, Operation::masked_softmax);
    CHECK(run(fully_forbidden_refused(Operation::masked_softmax), s).passed());
    CHECK_FALSE(run(fully_forbidden_refused(Operation::masked_softmax, "FullyMaskedRowError"), s).passed());
    CHECK_FALSE(run(non_finite_refused(Operation::masked_softmax, "NonFiniteInputError"), s).passed());
  }
  SECTION("NaN passed through instead of refused") {
    FnSubject s([](const Case& c) { return Outcome::make_result({}, softmax_variant(c, true, 0, false)); },
                Operation::masked_softmax);
    CHECK_FALSE(run(non_finite_refused(Operation::masked_softmax), s).passed());
  }
}

TEST_CASE("attention mistakes are caught by the metamorphic properties", "[mutants]") {
  SECTION("positions leak in: row i's logits get + i") {
    FnSubject s([](const Case& c) {
      attn::Matrix<double> S = attn::scores<double>(c.Q, c.K);
      for (Index i = 0; i < S.rows(); ++i)
        for (Index j = 0; j < S.cols(); ++j) S(i, j) += 0.5 * double(j);
      const attn::Matrix<double> A = c.mask ? attn::masked_softmax<double>(S, *c.mask) : attn::softmax_rows<double>(S);
      return Outcome::make_result(A * c.V, A);
    });
    CHECK_FALSE(run(permutation_equivariance(), s).passed());
  }
  SECTION("the mask ignored when computing O") {
    FnSubject s([](const Case& c) {
      const auto masked = attn::attention<double>(c.Q, c.K, c.V, c.mask);
      const auto plain = attn::attention<double>(c.Q, c.K, c.V);
      return Outcome::make_result(plain.O, masked.A);
    });
    CHECK_FALSE(run(masked_equals_deleted(), s).passed());
  }
}

TEST_CASE("NaN answers are oracle_agreement's, which says NaN and the oracle's value",
          "[mutants]") {
  // Answers NaN everywhere (as code without a max shift does once a logit
  // overflows): oracle_agreement charges it and its message says NaN and the
  // number that was due, not "nan ... nan". The metamorphic and the other
  // value properties do not charge NaN again; having judged nothing, they
  // fail on that ("nothing judged"), naming oracle_agreement, never passing.
  FnSubject s([](const Case& c) {
    attn::Matrix<double> A = attn::Matrix<double>::Constant(
        c.Q.rows(), c.K.rows(), std::numeric_limits<double>::quiet_NaN());
    attn::Matrix<double> O = attn::Matrix<double>::Constant(
        c.Q.rows(), c.V.cols(), std::numeric_limits<double>::quiet_NaN());
    return Outcome::make_result(O, A);
  });
  const Verdict oracle = run(oracle_agreement(), s);
  REQUIRE_FALSE(oracle.passed());
  REQUIRE(oracle.failure);
  INFO(oracle.failure->summary);
  CHECK_THAT(oracle.failure->summary, Catch::Contains("is NaN; the oracle gives"));
  CHECK_THAT(oracle.failure->summary, !Catch::Contains("gives nan"));
  for (const Property& p : {shift_invariance(), masked_equals_deleted(), row_stochastic(), exact_zeros()}) {
    INFO(p.id);
    const Verdict v = run(p, s);
    REQUIRE_FALSE(v.passed());
    REQUIRE(v.failure);
    INFO(v.failure->summary);
    CHECK_THAT(v.failure->summary, Catch::StartsWith("nothing judged") &&
                                       Catch::Contains("a non-finite answer, which oracle_agreement charges"));
    CHECK(v.counterexample);
  }
}

TEST_CASE("an answer of zeros does not pass exact_zeros by its zeros", "[mutants]") {
  // Code that computes nothing (A = 0, O = 0, the right shapes): its
  // forbidden weights are 0, but so is every allowed one, which says
  // nothing of the mask. exact_zeros leaves such rows to row_stochastic,
  // which charges them (a row summing to 0), and having judged nothing fails.
  FnSubject zeros([](const Case& c) {
    return Outcome::make_result(attn::Matrix<double>::Zero(c.Q.rows(), c.V.cols()),
                                attn::Matrix<double>::Zero(c.Q.rows(), c.K.rows()));
  });
  const Verdict v = run(exact_zeros(), zeros);
  REQUIRE_FALSE(v.passed());
  REQUIRE(v.failure);
  INFO(v.failure->summary);
  CHECK_THAT(v.failure->summary, Catch::StartsWith("nothing judged") &&
                                     Catch::Contains("which row_stochastic charges"));
  CHECK_FALSE(run(row_stochastic(), zeros).passed());
  // One weightless row beside weighted ones: the weighted rows are judged.
  FnSubject one_row_zero([](const Case& c) {
    auto r = attn::attention<double>(c.Q, c.K, c.V, c.mask);
    r.A.row(0).setZero();
    return Outcome::make_result(r.O, r.A);
  });
  if (const Verdict w = run(exact_zeros(), one_row_zero); !w.passed()) {
    REQUIRE(w.failure);
    FAIL(w.failure->summary);
  }
  // The weight all on a forbidden key (a finite fill that wins over allowed
  // logits below it) is not a row of zeros: charged.
  FnSubject forbidden_wins([](const Case& c) {
    attn::Matrix<double> A = attn::Matrix<double>::Zero(c.Q.rows(), c.K.rows());
    for (Index i = 0; i < A.rows(); ++i)
      for (Index j = 0; j < A.cols(); ++j)
        if (c.mask && (*c.mask)(i, j)) {
          A(i, j) = 1;
          break;
        }
    return Outcome::make_result(A * c.V, A);
  });
  const Verdict f = run(exact_zeros(), forbidden_wins);
  REQUIRE_FALSE(f.passed());
  REQUIRE(f.failure);
  CHECK_THAT(f.failure->summary, Catch::Contains("it must be exactly 0"));
}

TEST_CASE("code that refuses every input passes no property of attention", "[mutants]") {
  // A skeleton that raises for every call (exercises/F3/skeleton.py): its
  // refusals of valid inputs are score_shape's to charge, and refusing the
  // NaN and Inf inputs of the edge cases is right but judges no value. So
  // each value property judged nothing and fails ("nothing judged", manual:
  // "a skeleton that raises for everything scores 0"); oracle_agreement too.
  FnSubject s([](const Case&) {
    return Outcome::make_refusal("NotImplementedError", "not written yet");
  });
  for (const Property& p : attention_properties()) {
    INFO(p.id);
    const Verdict v = run(p, s);
    CHECK_FALSE(v.passed());
    if (p.id == "oracle_agreement") {
      REQUIRE(v.failure);
      INFO(v.failure->summary);
      CHECK_THAT(v.failure->summary, Catch::StartsWith("nothing judged") &&
                                         Catch::Contains("a refused valid input"));
    }
  }
}

TEST_CASE("an overflow without the max shift is charged to oracle_agreement alone", "[mutants]") {
  // exp of the raw logits (no max shift, F2's rule "stable for logits of size
  // 1000"): rows with an overflow are NaN. oracle_agreement charges them; the
  // rows sums, the forbidden zeros, shift invariance and masked = deleted
  // judge only the rows without a NaN, which are right.
  const Operation op = Operation::masked_softmax;
  FnSubject no_shift(
      [](const Case& c) {
        // std::exp per entry: Eigen's vectorised exp gives 5.6e-309 for
        // -inf, a second fault (exact_zeros') this test is not about.
        attn::Matrix<double> E = c.S.unaryExpr([](double x) { return std::exp(x); });
        if (c.mask)
          for (Index i = 0; i < E.rows(); ++i)
            for (Index j = 0; j < E.cols(); ++j)
              if ((*c.mask)(i, j)) E(i, j) = 0.0;
        for (Index i = 0; i < E.rows(); ++i) E.row(i) /= E.row(i).sum();
        return Outcome::make_result(DMatrix(), E);
      },
      op);
  CHECK_FALSE(run(oracle_agreement(op), no_shift).passed());
  for (const Property& p : {row_stochastic(op), exact_zeros(op), masked_equals_deleted(op)}) {
    INFO(p.id);
    const Verdict v = run(p, no_shift);
    INFO((v.failure ? v.failure->summary : std::string("passed")));
    CHECK(v.passed());
  }
  // The same missing shift has a second, finite face that shift invariance
  // exists to find: a row shifted far down underflows in part (exp(S - 402)),
  // and its weights move off by far more than their rounding. That may fail,
  // but never on a NaN, which is oracle_agreement's alone.
  const Verdict shifted = run(shift_invariance(op), no_shift);
  if (!shifted.passed()) {
    REQUIRE(shifted.failure);
    INFO(shifted.failure->summary);
    CHECK_THAT(shifted.failure->summary, !Catch::Contains("nan") && !Catch::Contains("NaN"));
  }
}

TEST_CASE("a refused valid input is charged to its owner alone", "[mutants]") {
  // Refuses T_q != T_v (self-attention only), right otherwise. Attention:
  // score_shape charges it; the value and refusal properties judge the cases
  // it answers and say in their verdict that the others were left to it.
  LibSubject<double> lib;
  FnSubject square([&lib](const Case& c) {
    if (c.Q.rows() != c.K.rows())
      return Outcome::make_refusal("ValueError", "self-attention needs as many queries as keys");
    return lib.run(c);
  });
  const Verdict shape = run(score_shape(), square);
  REQUIRE_FALSE(shape.passed());
  REQUIRE(shape.failure);
  CHECK_THAT(shape.failure->summary, Catch::Contains("refused a valid input"));
  bool some_left = false;
  for (const Property& p : {oracle_agreement(), row_stochastic(), exact_zeros(),
                            dk_mismatch_refused(), fully_forbidden_refused()}) {
    INFO(p.id);
    const Verdict v = run(p, square);
    INFO((v.failure ? v.failure->summary : std::string("passed")));
    CHECK(v.passed());
    const std::string tag = "not judged here: a refused valid input, charged to score_shape alone";
    std::ostringstream text;
    print_verdict(text, v);
    if (v.regimes.count(tag)) {
      some_left = true;
      CHECK_THAT(text.str(), Catch::Contains("  " + tag + " ("));
    }
  }
  CHECK(some_left);
  // The softmax operations have no score_shape: oracle_agreement owns answering.
  const Operation op = Operation::masked_softmax;
  FnSubject square_S(
      [](const Case& c) {
        if (c.S.rows() != c.S.cols()) return Outcome::make_refusal("ValueError", "S must be square");
        LibSubject<double> l;
        return l.run(c);
      },
      op);
  CHECK_FALSE(run(oracle_agreement(op), square_S).passed());
  CHECK(run(row_stochastic(op), square_S).passed());
  CHECK(run(shift_invariance(op), square_S).passed());
}

TEST_CASE("a metamorphic property prints two different answers as two different numbers",
          "[mutants]") {
  // Subnormal weights at forbidden keys (where no rounding is allowed) that
  // differ only beyond 12 significant digits between the original and the
  // shifted case (printed to 12 digits they read "6.57223630855e-310 ...
  // gives 6.57223630855e-310"): the summary must print them so they differ.
  LibSubject<double> lib;
  FnSubject s([&lib](const Case& c) {
    Outcome o = lib.run(c);
    if (o.kind != Outcome::Kind::result || !c.mask) return o;
    const attn::Matrix<double> S = attn::scores<double>(c.Q, c.K);
    for (Index i = 0; i < o.A.rows(); ++i)
      for (Index j = 0; j < o.A.cols(); ++j)
        if ((*c.mask)(i, j)) {
          double x = 6.57223630855e-310;  // then up by a few ulps that follow the logit
          for (int k = int(std::fmod(std::abs(S(i, j)) * 1000.0, 7.0)); k > 0; --k)
            x = std::nextafter(x, 1.0);
          o.A(i, j) = x;
        }
    return o;
  });
  const Verdict v = run(shift_invariance(), s);
  REQUIRE_FALSE(v.passed());
  REQUIRE(v.failure);
  REQUIRE(v.failure->worst);
  INFO(v.failure->summary);
  const auto& w = *v.failure->worst;
  REQUIRE(w.actual != w.expected);
  const std::string& t = v.failure->summary;
  const std::string is_text = "of the transformed case is ", gives_text = "original case gives ";
  const auto is = t.find(is_text), gives = t.find(gives_text);
  REQUIRE(is != std::string::npos);
  REQUIRE(gives != std::string::npos);
  const auto a_at = is + is_text.size(), b_at = gives + gives_text.size();
  const std::string a = t.substr(a_at, t.find(", while", a_at) - a_at);
  const std::string b = t.substr(b_at, t.find(';', b_at) - b_at);
  CHECK(a != b);
  CHECK(std::strtod(a.c_str(), nullptr) == w.actual);
  CHECK(std::strtod(b.c_str(), nullptr) == w.expected);
}

namespace {

/// The library's answer with every weight and output of row 0 scaled by
/// 1 + 4 T_v^2 2^-52: an error that grows faster than the bound with the
/// row's length, near rounding level on short rows and far off on long ones.
Outcome length_dependent_error(const Case& c) {
  LibSubject<double> lib;
  Outcome o = lib.run(c);
  // Rows with one allowed key are left exact (they are judged exactly).
  if (o.kind != Outcome::Kind::result || c.mask || c.K.rows() < 2) return o;
  const double f = 1 + 4.0 * double(c.K.rows()) * double(c.K.rows()) * std::ldexp(1.0, -52);
  o.A.row(0) *= f;
  o.O.row(0) *= f;
  return o;
}

}  // namespace

TEST_CASE("a failure that grows with the row's length is shown where it is loud", "[mutants]") {
  // Quiet on the short cases (a few times the bound), loud on the long
  // ones: the counterexample is the loud one, its summary names the small one.
  FnSubject s(length_dependent_error);
  const Verdict v = run(oracle_agreement(), s);
  REQUIRE_FALSE(v.passed());
  REQUIRE(v.failure);
  REQUIRE(v.failure->worst);
  INFO(v.failure->summary);
  INFO("worst " << v.failure->worst->matrix << " error " << v.failure->worst->error << " bound " << v.failure->worst->bound);
  CHECK(v.failure->worst->bound > 0);
  CHECK(v.failure->worst->error >= 10 * v.failure->worst->bound);
}

namespace {

/// The library computing in float (float32) while declaring double: every
/// step right, the arithmetic a student's np.float32 array gives.
class FloatDeclaredDouble : public Subject {
 public:
  std::string name() const override { return "attn::attention<float>, declared double"; }
  Precision precision() const override { return Precision::of_double(); }
  bool supports(Operation op) const override { return inner_.supports(op); }
  Outcome run(const Case& c) override { return inner_.run(c); }

 private:
  LibSubject<float> inner_;
};

}  // namespace

TEST_CASE("a float32 computation declared float64 fails at float64's bounds and holds at float32's",
          "[precision]") {
  FloatDeclaredDouble s;
  const Verdict v = run(oracle_agreement(), s);
  REQUIRE_FALSE(v.passed());
  REQUIRE(v.counterexample);
  CHECK(holds_at_precision(oracle_agreement(), s, *v.counterexample, Precision::of_float()));
  CHECK_FALSE(holds_at_precision(oracle_agreement(), s, *v.counterexample, Precision::of_double()));
}

TEST_CASE("a logic error does not hold at float32's bounds", "[precision]") {
  FnSubject s(post_softmax_mask);
  const Verdict v = run(row_stochastic(), s);
  REQUIRE_FALSE(v.passed());
  REQUIRE(v.counterexample);
  CHECK_FALSE(holds_at_precision(row_stochastic(), s, *v.counterexample, Precision::of_float()));
}

TEST_CASE("a case another property judges is not said to hold at float32", "[precision]") {
  // NaN everywhere: row_stochastic leaves a non-finite answer to
  // oracle_agreement (one fault, one charge), so its check returns no failure
  // without having judged the case.
  FnSubject s([](const Case& c) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return Outcome::make_result(DMatrix::Constant(c.Q.rows(), c.V.cols(), nan),
                                DMatrix::Constant(c.Q.rows(), c.K.rows(), nan));
  });
  const Verdict v = run(oracle_agreement(), s);
  REQUIRE_FALSE(v.passed());
  REQUIRE(v.counterexample);
  REQUIRE_FALSE(row_stochastic().check(s, *v.counterexample));  // passed, as a case left to another
  CHECK_FALSE(holds_at_precision(row_stochastic(), s, *v.counterexample, Precision::of_float()));
}
