// The memo of the oracle's values (src/oracle_memo.hpp): a call answered
// from the memo returns exactly what a fresh computation returns, and a call
// differing from every earlier one in any argument's value (one entry of Q,
// K, V or dO by one ulp, one mask entry, the sign of a zero, the scale) is
// computed, not looked up.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>

#include "../src/oracle_memo.hpp"

using namespace attn;
using prop::detail::clear_oracle_memo;
using prop::detail::oracle_memo_stats;

namespace {

ref::DMatrix filled(Eigen::Index rows, Eigen::Index cols, double start) {
  ref::DMatrix M(rows, cols);
  for (Eigen::Index k = 0; k < M.size(); ++k) M.data()[k] = start + 0.37 * double(k % 7) - 0.11 * double(k);
  return M;
}

bool same(const ref::RealMatrix& a, const ref::RealMatrix& b) {
  return a.rows == b.rows && a.cols == b.cols && a.data == b.data;
}

bool same(const ref::ExactAttention& a, const ref::ExactAttention& b) {
  return same(a.S, b.S) && same(a.A, b.A) && same(a.O, b.O) && a.logsumexp == b.logsumexp &&
         a.allowed == b.allowed;
}

bool same(const ref::ExactGradients& a, const ref::ExactGradients& b) {
  return same(a.forward, b.forward) && same(a.dP, b.dP) && a.D == b.D && same(a.dS, b.dS) &&
         same(a.dQ, b.dQ) && same(a.dK, b.dK) && same(a.dV, b.dV);
}

/// One call through the memo: was it a hit?
bool hit(const std::function<void()>& call) {
  const long before = oracle_memo_stats().hits;
  call();
  return oracle_memo_stats().hits == before + 1;
}

}  // namespace

TEST_CASE("oracle memo: exact_attention - a hit equals a fresh computation and any changed argument misses",
          "[oracle_memo]") {
  clear_oracle_memo();
  const ref::DMatrix Q = filled(3, 4, 0.5), K = filled(5, 4, -1.25), V = filled(5, 2, 2.0);
  ref::BoolMatrix m = ref::BoolMatrix::Constant(3, 5, false);
  m(0, 4) = true;
  const std::optional<ref::BoolMatrix> mask = m;
  const ref::ExactAttention fresh = ref::exact_attention(Q, K, V, mask);

  ref::ExactAttention first, second;
  CHECK_FALSE(hit([&] { first = prop::detail::memo_exact_attention(Q, K, V, mask); }));
  CHECK(hit([&] { second = prop::detail::memo_exact_attention(Q, K, V, mask); }));
  CHECK(same(first, fresh));
  CHECK(same(second, fresh));

  // Each argument changed alone: a miss, and the fresh value of the changed call.
  auto next_up = [](ref::DMatrix M, Eigen::Index i, Eigen::Index j) {
    M(i, j) = std::nextafter(M(i, j), std::numeric_limits<double>::infinity());
    return M;
  };
  const ref::DMatrix Q2 = next_up(Q, 2, 3), K2 = next_up(K, 4, 0), V2 = next_up(V, 1, 1);
  ref::ExactAttention got;
  CHECK_FALSE(hit([&] { got = prop::detail::memo_exact_attention(Q2, K, V, mask); }));
  CHECK(same(got, ref::exact_attention(Q2, K, V, mask)));
  CHECK_FALSE(hit([&] { got = prop::detail::memo_exact_attention(Q, K2, V, mask); }));
  CHECK(same(got, ref::exact_attention(Q, K2, V, mask)));
  CHECK_FALSE(hit([&] { got = prop::detail::memo_exact_attention(Q, K, V2, mask); }));
  CHECK(same(got, ref::exact_attention(Q, K, V2, mask)));
  ref::BoolMatrix m2 = m;
  m2(2, 1) = true;
  CHECK_FALSE(hit([&] { got = prop::detail::memo_exact_attention(Q, K, V, m2); }));
  CHECK(same(got, ref::exact_attention(Q, K, V, m2)));
  CHECK_FALSE(hit([&] { got = prop::detail::memo_exact_attention(Q, K, V, std::nullopt); }));
  CHECK(same(got, ref::exact_attention(Q, K, V, std::nullopt)));
  CHECK_FALSE(hit([&] { got = prop::detail::memo_exact_attention(Q, K, V, mask, 0.5); }));
  CHECK(same(got, ref::exact_attention(Q, K, V, mask, 0.5)));
  // The same bytes in another shape are another key.
  const ref::DMatrix wide = filled(2, 3, 1.0);
  const ref::DMatrix tall = Eigen::Map<const ref::DMatrix>(wide.data(), 3, 2);
  CHECK(prop::detail::OracleKey("f").add(wide).bytes() !=
        prop::detail::OracleKey("f").add(tall).bytes());
  // -0.0 and 0.0 are different bytes, so a different key.
  ref::DMatrix Qz = Q, Qnz = Q;
  Qz(0, 0) = 0.0;
  Qnz(0, 0) = -0.0;
  CHECK_FALSE(hit([&] { (void)prop::detail::memo_exact_attention(Qz, K, V, mask); }));
  CHECK_FALSE(hit([&] { (void)prop::detail::memo_exact_attention(Qnz, K, V, mask); }));
  // The original call is still remembered.
  CHECK(hit([&] { got = prop::detail::memo_exact_attention(Q, K, V, mask); }));
  CHECK(same(got, fresh));
}

TEST_CASE("oracle memo: the softmax, the second tier and the backward pass", "[oracle_memo]") {
  clear_oracle_memo();
  const ref::DMatrix S = filled(2, 6, 3.0);
  ref::ExactSoftmax a, b;
  CHECK_FALSE(hit([&] { a = prop::detail::memo_exact_masked_softmax(S, std::nullopt); }));
  CHECK(hit([&] { b = prop::detail::memo_exact_masked_softmax(S, std::nullopt); }));
  const ref::ExactSoftmax fresh = ref::exact_masked_softmax(S, std::nullopt);
  CHECK((same(a.A, fresh.A) && same(b.A, fresh.A) && same(b.S, fresh.S) &&
         b.logsumexp == fresh.logsumexp && b.allowed == fresh.allowed));
  // The same arguments to another oracle function: a different key.
  CHECK_FALSE(hit([&] { (void)prop::detail::memo_extended_masked_softmax(S, std::nullopt); }));

  const ref::DMatrix Q = filled(3, 2, 0.25), K = filled(4, 2, -0.5), V = filled(4, 3, 1.0),
                     dO = filled(3, 3, -2.0);
  const ref::ExactGradients fresh_g = ref::exact_attention_backward(Q, K, V, dO, std::nullopt);
  ref::ExactGradients g;
  CHECK_FALSE(hit([&] { g = prop::detail::memo_exact_attention_backward(Q, K, V, dO, std::nullopt); }));
  CHECK(same(g, fresh_g));
  CHECK(hit([&] { g = prop::detail::memo_exact_attention_backward(Q, K, V, dO, std::nullopt); }));
  CHECK(same(g, fresh_g));
  ref::DMatrix dO2 = dO;
  dO2(1, 2) = std::nextafter(dO2(1, 2), 0.0);
  CHECK_FALSE(hit([&] { g = prop::detail::memo_exact_attention_backward(Q, K, V, dO2, std::nullopt); }));
  CHECK(same(g, ref::exact_attention_backward(Q, K, V, dO2, std::nullopt)));
  CHECK_FALSE(hit([&] { (void)prop::detail::memo_exact_attention(Q, K, V, std::nullopt); }));
}

TEST_CASE("oracle memo: a refusal is thrown again, not remembered", "[oracle_memo]") {
  clear_oracle_memo();
  const ref::DMatrix Q = filled(2, 2, 0.0), K = filled(3, 2, 1.0), V = filled(3, 1, 0.0);
  const ref::BoolMatrix all = ref::BoolMatrix::Constant(2, 3, true);
  CHECK_THROWS_AS(prop::detail::memo_exact_attention(Q, K, V, all), ref::OracleRefusal);
  CHECK_THROWS_AS(prop::detail::memo_exact_attention(Q, K, V, all), ref::OracleRefusal);
  CHECK(oracle_memo_stats().hits == 0);
  CHECK(oracle_memo_stats().misses == 2);
}
