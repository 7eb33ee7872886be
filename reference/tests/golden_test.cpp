// Every number the two source pages print, checked three ways:
//   the library against the printed value (the text's 1e-4),
//   the oracle against the printed value (1e-4),
//   the library against the oracle within the error bound (tight).
#include <catch2/catch.hpp>
#include <cmath>

#include "attn/attn.hpp"
#include "attn/ref/error_bound.hpp"
#include "attn/ref/oracle.hpp"
#include "attn/ref/textbook.hpp"

namespace tb = attn::ref::textbook;
using attn::ref::DMatrix;

namespace {

/// Largest |a - b| over entries; both must have the same shape.
double max_abs_diff(const DMatrix& a, const DMatrix& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  return (a - b).cwiseAbs().maxCoeff();
}

/// Every entry of `actual` within `bound` of the exact value.
void require_within_bound(const char* what, const DMatrix& actual, const attn::ref::RealMatrix& exact,
                          const DMatrix& bound) {
  REQUIRE(actual.rows() == exact.rows);
  REQUIRE(actual.cols() == exact.cols);
  for (Eigen::Index i = 0; i < actual.rows(); ++i)
    for (Eigen::Index j = 0; j < actual.cols(); ++j) {
      const double err = static_cast<double>(abs(attn::ref::Real(actual(i, j)) - exact(i, j)));
      INFO(what << "(" << i << ", " << j << "): actual " << actual(i, j) << ", error " << err
                << ", bound " << bound(i, j));
      CHECK(err <= bound(i, j));
    }
}

template <class T>
attn::Matrix<T> as(const DMatrix& M) {
  return M.template cast<T>();
}

}  // namespace

TEST_CASE("32.2.6 two-token example: S, exponentials, A and O without a mask", "[golden]") {
  const tb::TwoToken ex;
  const auto exact = attn::ref::exact_attention(ex.Q, ex.K, ex.V, std::nullopt);
  CHECK(max_abs_diff(attn::ref::to_double(exact.S), ex.S) < tb::kPrintedTolerance);
  CHECK(max_abs_diff(attn::ref::to_double(exact.A), ex.A) < tb::kPrintedTolerance);
  CHECK(max_abs_diff(attn::ref::to_double(exact.O), ex.O) < tb::kPrintedTolerance);
  // Exponentials and denominators are intermediate numbers: recompute them
  // from the oracle's logits.
  for (int i = 0; i < 2; ++i) {
    double Z = 0;
    for (int j = 0; j < 2; ++j) {
      const double e = static_cast<double>(exp(exact.S(i, j)));
      CHECK(std::abs(e - ex.exp_S(i, j)) < tb::kPrintedTolerance);
      Z += e;
    }
    CHECK(std::abs(Z - ex.Z(i, 0)) < tb::kPrintedTolerance);
  }

  const auto bound = attn::ref::attention_error_bound(ex.Q, ex.K, ex.V, exact,
                                                      attn::ref::PrecisionModel::for_double());
  const auto r = attn::attention<double>(ex.Q, ex.K, ex.V);
  CHECK(max_abs_diff(r.A, ex.A) < tb::kPrintedTolerance);
  CHECK(max_abs_diff(r.O, ex.O) < tb::kPrintedTolerance);
  require_within_bound("A", r.A, exact.A, bound.A);
  require_within_bound("O", r.O, exact.O, bound.O);
  require_within_bound("S", attn::scores<double>(ex.Q, ex.K), exact.S, bound.S);

  const auto bf = attn::ref::attention_error_bound(ex.Q, ex.K, ex.V, exact,
                                                   attn::ref::PrecisionModel::for_float());
  const auto rf = attn::attention<float>(as<float>(ex.Q), as<float>(ex.K), as<float>(ex.V));
  CHECK(max_abs_diff(rf.A.cast<double>(), ex.A) < tb::kPrintedTolerance);
  require_within_bound("A (float)", rf.A.cast<double>(), exact.A, bf.A);
  require_within_bound("O (float)", rf.O.cast<double>(), exact.O, bf.O);
}

TEST_CASE("32.2.6 two-token example with the causal mask: Am and Om", "[golden]") {
  const tb::TwoToken ex;
  // The example's mask is the text's causal rule j <= i.
  CHECK(attn::causal_mask(2, 2) == ex.causal);
  const auto exact = attn::ref::exact_attention(ex.Q, ex.K, ex.V, ex.causal);
  CHECK(max_abs_diff(attn::ref::to_double(exact.A), ex.A_masked) < tb::kPrintedTolerance);
  CHECK(max_abs_diff(attn::ref::to_double(exact.O), ex.O_masked) < tb::kPrintedTolerance);

  const auto r = attn::attention<double>(ex.Q, ex.K, ex.V, ex.causal);
  CHECK(max_abs_diff(r.A, ex.A_masked) < tb::kPrintedTolerance);
  CHECK(max_abs_diff(r.O, ex.O_masked) < tb::kPrintedTolerance);
  // Lemma 2: the forbidden weight is exactly zero and the row holds all the mass.
  CHECK(r.A(0, 1) == 0.0);
  CHECK(r.A(0, 0) == 1.0);
  const auto bound = attn::ref::attention_error_bound(ex.Q, ex.K, ex.V, exact,
                                                      attn::ref::PrecisionModel::for_double());
  require_within_bound("Am", r.A, exact.A, bound.A);
  require_within_bound("Om", r.O, exact.O, bound.O);
}

TEST_CASE("F2: masked softmax of S = [[0, 2, -inf], [1, -1, 0]], with and without the shift", "[golden]") {
  const tb::F2 ex;
  const auto exact = attn::ref::exact_masked_softmax(ex.S, std::nullopt);
  CHECK(max_abs_diff(attn::ref::to_double(exact.A), ex.A) < tb::kPrintedTolerance);
  // The printed denominators are those of the unshifted form: sum_j exp(S_ij) = exp(logsumexp_i).
  for (int i = 0; i < 2; ++i)
    CHECK(std::abs(static_cast<double>(exp(exact.logsumexp[std::size_t(i)])) - ex.Z(i, 0)) <
          tb::kPrintedTolerance);

  const auto bound = attn::ref::softmax_error_bound(exact, attn::ref::PrecisionModel::for_double());
  // -inf in S is a forbidden logit ...
  const auto A1 = attn::softmax_rows<double>(ex.S);
  // ... and the same as masking the finite logits (the -inf replaced by any number).
  DMatrix S_finite = ex.S;
  S_finite(0, 2) = 123.0;
  attn::Mask mask = attn::Mask::Constant(2, 3, false);
  mask(0, 2) = true;
  const auto A2 = attn::masked_softmax<double>(S_finite, mask);
  for (const auto* A : {&A1, &A2}) {
    CHECK(max_abs_diff(*A, ex.A) < tb::kPrintedTolerance);
    CHECK((*A)(0, 2) == 0.0);
    require_within_bound("A", *A, exact.A, bound.A);
  }
}

TEST_CASE("F4: zeroing after the softmax leaves row 1 summing to 0.3302", "[golden]") {
  const tb::TwoToken ex;
  const tb::F4 f4;
  // Do the buggy thing with the oracle's exact weights: softmax over all keys,
  // then zero the forbidden entry without renormalising.
  const auto exact = attn::ref::exact_attention(ex.Q, ex.K, ex.V, std::nullopt);
  DMatrix A = attn::ref::to_double(exact.A);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      if (ex.causal(i, j)) A(i, j) = 0.0;
  CHECK(max_abs_diff(A, f4.A_buggy) < tb::kPrintedTolerance);
  CHECK(std::abs(A.row(f4.buggy_row).sum() - f4.buggy_row_sum) < tb::kPrintedTolerance);
  // The correct masking (Lemma 2) gives a row sum of exactly 1 in the oracle.
  const auto masked = attn::ref::exact_attention(ex.Q, ex.K, ex.V, ex.causal);
  CHECK(masked.A(0, 0) + masked.A(0, 1) == 1);
}

TEST_CASE("14.3: query [1,1] against keys [1,0], [0,1], [1,1]: dots and scaled scores", "[golden]") {
  const tb::Scale143 ex;
  const auto exact = attn::ref::exact_attention(ex.Q, ex.K, ex.K, std::nullopt);
  CHECK(max_abs_diff(attn::ref::to_double(exact.S), ex.S) < tb::kPrintedTolerance);
  const double root2 = std::sqrt(2.0);
  CHECK(max_abs_diff(attn::ref::to_double(exact.S) * root2, ex.dots) < 1e-15);
  const auto S = attn::scores<double>(ex.Q, ex.K);
  CHECK(max_abs_diff(S, ex.S) < tb::kPrintedTolerance);
  CHECK(max_abs_diff(ex.Q * ex.K.transpose(), ex.dots) == 0.0);
  const auto bound = attn::ref::attention_error_bound(ex.Q, ex.K, ex.K, exact,
                                                      attn::ref::PrecisionModel::for_double());
  require_within_bound("S", S, exact.S, bound.S);
  // Zero Q gives equal scores (14.3, the "switch scaling off" experiment).
  const auto S0 = attn::scores<double>(DMatrix::Zero(1, 2), ex.K);
  CHECK((S0.array() == 0.0).all());
}

TEST_CASE("32.2.10: weights are not contributions: A = (0.1, 0.9) gives o = (0.1, 0)", "[golden]") {
  const tb::Counterexample3210 ex;
  // Logits whose softmax is exactly (0.1, 0.9): S = (0, log 9).
  DMatrix S(1, 2);
  S << 0.0, std::log(9.0);
  const auto exact = attn::ref::exact_masked_softmax(S, std::nullopt);
  CHECK(max_abs_diff(attn::ref::to_double(exact.A), ex.A) < 1e-15);
  const auto A = attn::softmax_rows<double>(S);
  const DMatrix O = A * ex.V;
  CHECK(max_abs_diff(O, ex.O) < tb::kPrintedTolerance);
  // The larger weight sits on v2, yet v1 contributes more in magnitude.
  CHECK(A(0, 1) > A(0, 0));
  CHECK(std::abs(A(0, 0) * ex.V(0, 0)) > std::abs(A(0, 1) * ex.V(1, 0)));
}
