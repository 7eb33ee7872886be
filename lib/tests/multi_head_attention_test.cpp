// Multi-head attention (section 32.2.5; Vaswani et al. 2017, section 3.2.2):
// heads are independent attentions of their own projections, concatenated
// head by head, then multiplied by W_O.
#include <catch2/catch.hpp>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "attn/attn.hpp"

using attn::Index;
using attn::Mask;

namespace {

template <class T>
attn::Matrix<T> uniform(Index rows, Index cols, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  attn::Matrix<T> M(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) M(i, j) = static_cast<T>(dist(rng));
  return M;
}

template <class T>
attn::MultiHeadWeights<T> random_weights(Index h, Index d_model, Index d_k, Index d_v, Index d_out,
                                         std::mt19937_64& rng) {
  attn::MultiHeadWeights<T> w;
  for (Index i = 0; i < h; ++i)
    w.heads.push_back({uniform<T>(d_model, d_k, rng), uniform<T>(d_model, d_k, rng),
                       uniform<T>(d_model, d_v, rng)});
  w.W_O = uniform<T>(h * d_v, d_out, rng);
  return w;
}

/// Head i alone, from its definition: attention(X_q W_Q, X_kv W_K, X_kv W_V, mask).O.
template <class T>
attn::Matrix<T> one_head(const attn::Matrix<T>& X_q, const attn::Matrix<T>& X_kv,
                         const attn::HeadWeights<T>& hw, const std::optional<Mask>& mask) {
  const attn::Matrix<T> Q = X_q * hw.W_Q, K = X_kv * hw.W_K, V = X_kv * hw.W_V;
  return attn::attention<T>(Q, K, V, mask).O;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const attn::ShapeError& e) {
    return e.what();
  }
  return "(no ShapeError)";
}

}  // namespace

TEMPLATE_TEST_CASE("multi-head, h = 1 and W_O = I: single-head attention of the projections",
                   "[multi_head]", float, double) {
  using T = TestType;
  using Mat = attn::Matrix<T>;
  std::mt19937_64 rng(11);
  auto w = random_weights<T>(1, 5, 3, 4, 4, rng);
  w.W_O = Mat::Identity(4, 4);
  const Mat X = uniform<T>(6, 5, rng);
  const Mask causal = attn::causal_mask(6, 6);
  // Multiplying by the identity adds exact zeros: the result is bit-identical.
  CHECK(attn::multi_head_attention<T>(X, w, causal) == one_head<T>(X, X, w.heads[0], causal));
  CHECK(attn::multi_head_attention<T>(X, w) == one_head<T>(X, X, w.heads[0], std::nullopt));
  // Cross-attention: queries from X_q (T_q = 3), keys and values from X_kv (T_v = 6).
  const Mat X_q = uniform<T>(3, 5, rng);
  const Mask pad = attn::padding_mask(3, 6, 4);
  CHECK(attn::multi_head_attention<T>(X_q, X, w, pad) == one_head<T>(X_q, X, w.heads[0], pad));
  // Not vacuous: the mask changes the answer.
  CHECK(attn::multi_head_attention<T>(X_q, X, w, pad) !=
        attn::multi_head_attention<T>(X_q, X, w, std::nullopt));
}

TEMPLATE_TEST_CASE("multi-head: head i occupies columns i*d_v .. (i+1)*d_v - 1, W_O on the right",
                   "[multi_head]", float, double) {
  using T = TestType;
  using Mat = attn::Matrix<T>;
  std::mt19937_64 rng(12);
  const Index h = 3, d_model = 6, d_v = 2;
  auto w = random_weights<T>(h, d_model, 2, d_v, 5, rng);
  const Mat X = uniform<T>(5, d_model, rng);
  const Mat W_O = w.W_O;
  w.W_O = Mat::Identity(h * d_v, h * d_v);
  const Mat concat = attn::multi_head_attention<T>(X, w, std::nullopt);
  REQUIRE(concat.cols() == h * d_v);
  for (Index i = 0; i < h; ++i) {
    INFO("head " << i);
    CHECK(concat.middleCols(i * d_v, d_v) ==
          one_head<T>(X, X, w.heads[std::size_t(i)], std::nullopt));
  }

  // Changing head 2's weights leaves heads 0 and 1 as they were and changes head 2.
  auto w2 = w;
  w2.heads[2].W_Q *= T(3);
  w2.heads[2].W_V = uniform<T>(d_model, d_v, rng);
  const Mat concat2 = attn::multi_head_attention<T>(X, w2, std::nullopt);
  CHECK(concat2.leftCols(2 * d_v) == concat.leftCols(2 * d_v));
  CHECK(concat2.rightCols(d_v) != concat.rightCols(d_v));

  // With a general W_O (6 x 5): O = concat W_O, up to the rounding of one product.
  w.W_O = W_O;
  const Mat O = attn::multi_head_attention<T>(X, w, std::nullopt);
  REQUIRE(O.rows() == 5);
  REQUIRE(O.cols() == 5);
  const Mat expected = concat * W_O;
  // One (h d_v)-term dot product, |concat| <= 1 and |W_O| <= 1: gamma_6 * 6 < 8 * 6 u.
  const T tol = T(48) * std::numeric_limits<T>::epsilon();
  CHECK((O - expected).cwiseAbs().maxCoeff() <= tol);
  // Not vacuous: the heads' blocks of W_O in the wrong order give another answer.
  const Mat reversed_rows = W_O.colwise().reverse();
  CHECK((O - concat * reversed_rows).cwiseAbs().maxCoeff() > tol);
}

TEST_CASE("multi-head: wrong shapes are ShapeErrors naming the head and the matrix",
          "[multi_head]") {
  using Mat = attn::Matrix<double>;
  std::mt19937_64 rng(13);
  const Mat X = uniform<double>(6, 5, rng);
  const auto good = random_weights<double>(3, 5, 3, 2, 4, rng);
  REQUIRE_NOTHROW(attn::multi_head_attention<double>(X, good));

  auto w = good;
  w.heads[2].W_K = Mat::Ones(4, 3);
  CHECK_THAT(message_of([&] { attn::multi_head_attention<double>(X, w); }),
             Catch::Contains("head 2: W_K is 4x3 but X has d_model = 5"));

  w = good;
  w.heads[1].W_Q = Mat::Ones(5, 2);  // d_k 2 against W_K's 3
  CHECK_THAT(message_of([&] { attn::multi_head_attention<double>(X, w); }),
             Catch::Contains("head 1"));

  w = good;
  w.heads[1].W_V = Mat::Ones(5, 3);  // d_v 3 against head 0's 2
  CHECK_THAT(message_of([&] { attn::multi_head_attention<double>(X, w); }),
             Catch::Contains("head 1: W_V is 5x3"));

  w = good;
  w.heads[0].W_Q = Mat(5, 0);
  w.heads[0].W_K = Mat(5, 0);
  CHECK_THAT(message_of([&] { attn::multi_head_attention<double>(X, w); }),
             Catch::Contains("head 0: d_k = 0"));

  w = good;
  w.W_O = Mat::Ones(5, 4);  // needs h * d_v = 6 rows
  CHECK_THAT(message_of([&] { attn::multi_head_attention<double>(X, w); }),
             Catch::Contains("W_O is 5x4"));

  w = good;
  w.heads.clear();
  CHECK_THROWS_AS(attn::multi_head_attention<double>(X, w), attn::ShapeError);

  // Cross-attention: X_q and X_kv must share d_model; W_V is checked against X_kv.
  CHECK_THROWS_AS(attn::multi_head_attention<double>(Mat::Ones(2, 4), X, good), attn::ShapeError);
  w = good;
  w.heads[2].W_V = Mat::Ones(3, 2);
  CHECK_THAT(message_of([&] { attn::multi_head_attention<double>(X, X, w); }),
             Catch::Contains("head 2: W_V is 3x2 but X_kv has d_model = 5"));

  // Mask shape: T_q x T_v.
  CHECK_THROWS_AS(attn::multi_head_attention<double>(X, good, Mask::Constant(6, 5, false)),
                  attn::ShapeError);
}

TEST_CASE("multi-head: non-finite weights named, fully forbidden rows refused", "[multi_head]") {
  using Mat = attn::Matrix<double>;
  std::mt19937_64 rng(14);
  const Mat X = uniform<double>(4, 5, rng);
  auto w = random_weights<double>(2, 5, 3, 2, 4, rng);
  auto bad = w;
  bad.heads[1].W_V(3, 1) = std::numeric_limits<double>::quiet_NaN();
  try {
    attn::multi_head_attention<double>(X, bad);
    FAIL("no error");
  } catch (const attn::NonFiniteInputError& e) {
    CHECK(e.matrix() == "head 1: W_V");
    CHECK(e.row() == 3);
    CHECK(e.col() == 1);
  }
  // Finite weights whose projection overflows: the head is named.
  bad = w;
  bad.heads[1].W_K.setConstant(1e308);
  try {
    attn::multi_head_attention<double>(Mat::Constant(4, 5, 10.0), bad);
    FAIL("no error");
  } catch (const attn::NonFiniteInputError& e) {
    CHECK_THAT(e.matrix(), Catch::StartsWith("head 1: K"));
  }
  Mask mask = Mask::Constant(4, 4, false);
  mask.row(3).setConstant(true);
  try {
    attn::multi_head_attention<double>(X, w, mask);
    FAIL("no error");
  } catch (const attn::FullyMaskedRowError& e) {
    CHECK(e.row() == 3);
  }
}
