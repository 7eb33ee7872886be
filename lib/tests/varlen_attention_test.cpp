// Batched attention: N sequences, each with its own padding (section 32.2.4),
// optionally with the top-left causal mask; and combine_masks.
#include <catch2/catch.hpp>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attn/attn.hpp"

using attn::Index;
using attn::Mask;

namespace {

template <class T>
attn::Matrix<T> uniform(Index rows, Index cols, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-2, 2);
  attn::Matrix<T> M(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) M(i, j) = static_cast<T>(dist(rng));
  return M;
}

template <class T>
struct Batch {
  std::vector<attn::Matrix<T>> Q, K, V;
  std::vector<Index> key_lengths;
};

/// Four sequences of different shapes; key lengths from 1 to the full T_v.
template <class T>
Batch<T> make_batch() {
  std::mt19937_64 rng(31);
  struct S {
    Index T_q, T_v, d_k, d_v, len;
  };
  Batch<T> b;
  for (const S& s : {S{3, 5, 2, 3, 2}, S{4, 4, 3, 1, 4}, S{1, 6, 2, 2, 1}, S{6, 3, 4, 2, 3}}) {
    b.Q.push_back(uniform<T>(s.T_q, s.d_k, rng));
    b.K.push_back(uniform<T>(s.T_v, s.d_k, rng));
    b.V.push_back(uniform<T>(s.T_v, s.d_v, rng));
    b.key_lengths.push_back(s.len);
  }
  return b;
}

/// The mask written out by hand: key j is forbidden for query i if it is
/// padding (j >= len) or, with `causal`, in the future (j > i).
Mask expected_mask(Index T_q, Index T_v, Index len, bool causal) {
  Mask M(T_q, T_v);
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) M(i, j) = j >= len || (causal && j > i);
  return M;
}

}  // namespace

TEMPLATE_TEST_CASE("batched equals per-sequence attention with the padding mask", "[batched]",
                   float, double) {
  using T = TestType;
  const Batch<T> b = make_batch<T>();
  for (bool causal : {false, true}) {
    const auto r = attn::attention_varlen<T>(b.Q, b.K, b.V, b.key_lengths, causal);
    REQUIRE(r.size() == b.Q.size());
    for (std::size_t n = 0; n < b.Q.size(); ++n) {
      INFO("sequence " << n << (causal ? ", causal" : ""));
      const Index T_q = b.Q[n].rows(), T_v = b.K[n].rows(), len = b.key_lengths[n];
      const Mask M = expected_mask(T_q, T_v, len, causal);
      const auto one = attn::attention<T>(b.Q[n], b.K[n], b.V[n], M);
      CHECK(r[n].O == one.O);
      CHECK(r[n].A == one.A);
      // Padding keys get weight exactly 0; so do future keys under `causal`.
      for (Index i = 0; i < T_q; ++i)
        for (Index j = 0; j < T_v; ++j) {
          if (M(i, j)) {
            CHECK(r[n].A(i, j) == T(0));
          } else {
            CHECK(r[n].A(i, j) > T(0));
          }
        }
    }
  }
}

TEMPLATE_TEST_CASE("batched with padding equals attention over only the real keys", "[batched]",
                   float, double) {
  using T = TestType;
  const Batch<T> b = make_batch<T>();
  const auto r = attn::attention_varlen<T>(b.Q, b.K, b.V, b.key_lengths);
  for (std::size_t n = 0; n < b.Q.size(); ++n) {
    INFO("sequence " << n);
    const Index len = b.key_lengths[n];
    // Drop the padding rows of K and V instead of masking them.
    const auto trimmed = attn::attention<T>(b.Q[n], b.K[n].topRows(len), b.V[n].topRows(len));
    // The forbidden terms are exact zeros; only the order of the remaining
    // len-term sums may differ: 2 len u max|V| each for the normaliser and A V,
    // times a safety factor 2.
    const T u = std::numeric_limits<T>::epsilon() / 2;
    const T tol = T(8) * T(len + 1) * u * b.V[n].cwiseAbs().maxCoeff();
    CHECK((r[n].O - trimmed.O).cwiseAbs().maxCoeff() <= tol);
  }
}

TEST_CASE("batched: errors name the sequence", "[batched]") {
  using Mat = attn::Matrix<double>;
  const Batch<double> good = make_batch<double>();
  {
    auto b = good;
    b.key_lengths.pop_back();
    CHECK_THROWS_AS(attn::attention_varlen<double>(b.Q, b.K, b.V, b.key_lengths),
                    attn::ShapeError);
  }
  {
    auto b = good;
    b.key_lengths[2] = b.K[2].rows() + 1;  // longer than the sequence
    try {
      attn::attention_varlen<double>(b.Q, b.K, b.V, b.key_lengths);
      FAIL("no error");
    } catch (const attn::ShapeError& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains("sequence 2: "));
      CHECK_THAT(std::string(e.what()), Catch::Contains("key_length"));
    }
  }
  {
    auto b = good;
    b.K[1] = Mat::Ones(4, 2);  // d_k 2 against Q's 3
    try {
      attn::attention_varlen<double>(b.Q, b.K, b.V, b.key_lengths);
      FAIL("no error");
    } catch (const attn::ShapeError& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains("sequence 1: "));
    }
  }
  {
    auto b = good;
    b.key_lengths[1] = 0;  // every key of sequence 1 is padding
    try {
      attn::attention_varlen<double>(b.Q, b.K, b.V, b.key_lengths, true);
      FAIL("no error");
    } catch (const attn::FullyMaskedRowError& e) {
      CHECK(e.row() == 0);
      CHECK_THAT(std::string(e.what()), Catch::Contains("sequence 1: "));
    }
  }
  {
    auto b = good;
    b.V[3](1, 0) = std::numeric_limits<double>::quiet_NaN();
    try {
      attn::attention_varlen<double>(b.Q, b.K, b.V, b.key_lengths);
      FAIL("no error");
    } catch (const attn::NonFiniteInputError& e) {
      CHECK(e.matrix() == "V");
      CHECK(e.row() == 1);
      CHECK(e.col() == 0);
      CHECK_THAT(std::string(e.what()), Catch::Contains("sequence 3: "));
      CHECK_THAT(std::string(e.what()), Catch::Contains("nan"));
    }
  }
  // An empty batch is an empty result.
  CHECK(attn::attention_varlen<double>({}, {}, {}, {}).empty());
}

TEST_CASE("combine_masks is the entrywise or, shapes must match", "[masks]") {
  const Mask pad = attn::padding_mask(3, 4, 2);
  const Mask causal = attn::causal_mask(3, 4);
  const Mask both = attn::combine_masks(pad, causal);
  for (Index i = 0; i < 3; ++i)
    for (Index j = 0; j < 4; ++j) CHECK(both(i, j) == (j >= 2 || j > i));
  CHECK_THROWS_AS(attn::combine_masks(pad, attn::causal_mask(4, 3)), attn::ShapeError);
}

TEST_CASE("attention_batched, the former name, answers as attention_varlen", "[batched]") {
  const Batch<double> b = make_batch<double>();
  const auto now = attn::attention_varlen<double>(b.Q, b.K, b.V, b.key_lengths, true);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  const auto before = attn::attention_batched<double>(b.Q, b.K, b.V, b.key_lengths, true);
#pragma GCC diagnostic pop
  REQUIRE(before.size() == now.size());
  for (std::size_t n = 0; n < now.size(); ++n) {
    CHECK(before[n].O == now[n].O);
    CHECK(before[n].A == now[n].A);
  }
}
