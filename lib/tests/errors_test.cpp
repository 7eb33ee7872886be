// The library's typed errors: which input, which row, which shapes.
#include <catch2/catch.hpp>
#include <limits>

#include "attn/attn.hpp"

using M = attn::Matrix<double>;

TEST_CASE("d_k mismatch is a ShapeError naming both shapes", "[errors]") {
  try {
    attn::attention<double>(M::Ones(2, 3), M::Ones(4, 2), M::Ones(4, 1));
    FAIL("no error");
  } catch (const attn::ShapeError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("2x3"));
    CHECK_THAT(what, Catch::Contains("4x2"));
  }
  CHECK_THROWS_AS(attn::attention<double>(M::Ones(2, 2), M::Ones(3, 2), M::Ones(4, 1)),
                  attn::ShapeError);
  CHECK_THROWS_AS(attn::attention<double>(M::Ones(2, 0), M::Ones(3, 0), M::Ones(3, 1)),
                  attn::ShapeError);
  CHECK_THROWS_AS(attn::attention<double>(M::Ones(2, 2), M::Ones(3, 2), M::Ones(3, 1),
                                          attn::Mask::Constant(3, 2, false)),
                  attn::ShapeError);
  // ShapeError is an invalid_argument (docs/ARCHITECTURE.md, lib/ contract).
  CHECK_THROWS_AS(attn::scores<float>(attn::Matrix<float>::Ones(1, 2), attn::Matrix<float>::Ones(1, 3)),
                  std::invalid_argument);
}

TEST_CASE("a fully forbidden row is refused with its index", "[errors]") {
  attn::Mask mask = attn::Mask::Constant(3, 2, false);
  mask.row(2).setConstant(true);
  try {
    attn::attention<float>(attn::Matrix<float>::Ones(3, 2), attn::Matrix<float>::Ones(2, 2),
                           attn::Matrix<float>::Ones(2, 2), mask);
    FAIL("no error");
  } catch (const attn::FullyMaskedRowError& e) {
    CHECK(e.row() == 2);
    CHECK_THAT(std::string(e.what()), Catch::Contains("row 2"));
  }
  // T_v = 0: no key at all for any query.
  CHECK_THROWS_AS(attn::attention<double>(M::Ones(1, 2), M::Ones(0, 2), M::Ones(0, 1)),
                  attn::FullyMaskedRowError);
  // A row of only -inf logits is fully forbidden too.
  M S(1, 2);
  S << -std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(attn::softmax_rows<double>(S), attn::FullyMaskedRowError);
}

TEST_CASE("non-finite inputs are refused naming the matrix and the entry", "[errors]") {
  M Q = M::Ones(2, 2), K = M::Ones(2, 2), V = M::Ones(2, 2);
  V(1, 0) = std::numeric_limits<double>::quiet_NaN();
  try {
    attn::attention<double>(Q, K, V);
    FAIL("no error");
  } catch (const attn::NonFiniteInputError& e) {
    CHECK(e.matrix() == "V");
    CHECK(e.row() == 1);
    CHECK(e.col() == 0);
  }
  K(0, 1) = std::numeric_limits<double>::infinity();
  V(1, 0) = 0;
  CHECK_THROWS_AS(attn::attention<double>(Q, K, V), attn::NonFiniteInputError);
  M S = M::Zero(1, 2);
  S(0, 1) = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(attn::softmax_rows<double>(S), attn::NonFiniteInputError);
  // Logits that overflow double from finite Q and K.
  CHECK_THROWS_AS(attn::attention<double>(M::Constant(1, 1, 1e200), M::Constant(1, 1, 1e200),
                                          M::Ones(1, 1)),
                  attn::NonFiniteInputError);
}

TEST_CASE("empty query sets are handled: T_q = 0 gives empty O and A", "[errors]") {
  const auto r = attn::attention<double>(M(0, 2), M::Ones(3, 2), M::Ones(3, 4));
  CHECK(r.O.rows() == 0);
  CHECK(r.O.cols() == 4);
  CHECK(r.A.rows() == 0);
  CHECK(r.A.cols() == 3);
}
