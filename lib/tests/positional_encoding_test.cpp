// Sinusoidal positional encoding (section 32.2.5; Vaswani et al. 2017,
// section 3.5): sine at even, cosine at odd columns, frequency 1/10000^(2r/d).
// Expected values were computed independently with `bc -l` at 60 digits
// (e.g. `s(3/e(l(10000)*2/6))`) and rounded to the scalar type here.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "attn/attn.hpp"

using attn::Index;

namespace {

/// |actual - expected| <= 2 ulps of T at `expected`, plus the rounding of
/// the angle theta = t / 10000^(2r/d), which the library forms in double:
/// the exponent 2r/d (half a ulp, amplified by ln 10000 < 9.3), pow and the
/// division give theta a relative error below 8 u_d (u_d = 2^-53), hence up
/// to 8 u_d |theta| in sin or cos; doubled for safety. For double this term
/// is the larger one once theta is not small, or 2r/d is not exact.
template <class T>
bool close_to(T actual, long double expected, double theta) {
  const T e = static_cast<T>(expected);
  const T ulp = std::nextafter(std::abs(e), std::numeric_limits<T>::infinity()) - std::abs(e);
  const long double bound = 2 * static_cast<long double>(ulp) + 16 * 0x1p-53 * theta;
  return std::abs(static_cast<long double>(actual) - expected) <= bound;
}

}  // namespace

TEMPLATE_TEST_CASE("positional encoding: row 0 is 0, 1, 0, 1, ... exactly", "[positional]",
                   float, double) {
  using T = TestType;
  for (Index d : {1, 2, 7, 8}) {
    const auto P = attn::sinusoidal_positional_encoding<T>(3, d);
    REQUIRE(P.rows() == 3);
    REQUIRE(P.cols() == d);
    for (Index c = 0; c < d; ++c) CHECK(P(0, c) == (c % 2 == 0 ? T(0) : T(1)));
  }
}

TEMPLATE_TEST_CASE("positional encoding: hand-computed entries", "[positional]", float, double) {
  using T = TestType;
  // The last argument is theta (rounded up) for the angle term of the bound.
  // t = 1, d = 4: [sin 1, cos 1, sin(1/100), cos(1/100)].
  const auto P4 = attn::sinusoidal_positional_encoding<T>(2, 4);
  CHECK(close_to<T>(P4(1, 0), 0.841470984807896506652502321630298999622563060798L, 1.0));
  CHECK(close_to<T>(P4(1, 1), 0.540302305868139717400936607442976603732310420618L, 1.0));
  CHECK(close_to<T>(P4(1, 2), 0.009999833334166664682542438269099729038964385360L, 0.01));
  CHECK(close_to<T>(P4(1, 3), 0.999950000416665277780257933752206673212470583980L, 0.01));
  // t = 3, d = 6: column 2 = sin(3 / 10000^(2/6)), column 5 = cos(3 / 10000^(4/6)).
  const auto P6 = attn::sinusoidal_positional_encoding<T>(4, 6);
  CHECK(close_to<T>(P6(3, 2), 0.138798101080050528567354279860018971261890613149L, 0.1393));
  CHECK(close_to<T>(P6(3, 5), 0.999979112922960812033635759656179192767234137688L, 0.00647));
  // Odd d = 5: the last column (4) is a sine, sin(2 / 10000^(4/5)) at t = 2.
  const auto P5 = attn::sinusoidal_positional_encoding<T>(3, 5);
  CHECK(close_to<T>(P5(2, 4), 0.001261914354042222297590361062766130028615515771L, 0.00127));
  // t = 5, d = 7, column 3 = cos(5 / 10000^(2/7)).
  const auto P7 = attn::sinusoidal_positional_encoding<T>(6, 7);
  CHECK(close_to<T>(P7(5, 3), 0.935952176770468545566931703540281214803433921151L, 0.36));
}

TEST_CASE("positional encoding: entries within -1 .. 1, sin^2 + cos^2 = 1 per frequency",
          "[positional]") {
  const auto P = attn::sinusoidal_positional_encoding<double>(50, 10);
  CHECK(P.cwiseAbs().maxCoeff() <= 1.0);
  for (Index t = 0; t < 50; ++t)
    for (Index r = 0; r < 5; ++r)
      CHECK(std::abs(P(t, 2 * r) * P(t, 2 * r) + P(t, 2 * r + 1) * P(t, 2 * r + 1) - 1) < 1e-15);
  // Not constant along t: the first column's frequency is 1.
  CHECK(P(1, 0) != P(2, 0));
}

TEST_CASE("positional encoding: empty sizes are empty, negative sizes refused", "[positional]") {
  CHECK(attn::sinusoidal_positional_encoding<double>(0, 4).size() == 0);
  CHECK(attn::sinusoidal_positional_encoding<double>(0, 4).cols() == 4);
  CHECK(attn::sinusoidal_positional_encoding<float>(3, 0).rows() == 3);
  CHECK_THROWS_AS(attn::sinusoidal_positional_encoding<double>(-1, 4), attn::ShapeError);
  CHECK_THROWS_AS(attn::sinusoidal_positional_encoding<float>(2, -3), attn::ShapeError);
}
