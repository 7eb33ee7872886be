// Properties of the sinusoidal positional encoding (section 32.2.5: the
// embedding gets a position-dependent vector, X~_t = X_t + p_t; the sinusoidal
// form puts a sine at even columns 2r and a cosine at odd columns 2r + 1, with
// frequency 1 / 10000^(2r/d); Vaswani et al. 2017, section 3.5).
//
//  1. Values: sinusoidal_positional_encoding<T>(T_len, d) against the 50-digit
//     ref::exact_sinusoidal_positional_encoding, for T_len up to 64 and d up to 32,
//     within the library tests' tolerance (lib/tests/positional_encoding_test.cpp):
//     2 ulps of T at the exact value, plus 16 u_double |theta| for the rounding of
//     the angle theta = t / 10000^(2r/d), which the library forms in double
//     (the exponent, pow and the division: relative error below 8 u_double, doubled).
//  2. Structure: columns 2r and 2r + 1 are the sine and cosine of one angle, so
//     P(t, 2r)^2 + P(t, 2r+1)^2 = 1 within 4 eps of T (eps = 2u). Each entry is
//     sin or cos of the same double angle, off by at most 1 double ulp (libm), and
//     for float also rounded once: relative error alpha <= 2 u_d (double) or
//     u_f + 2 u_d (float). Then |s^2 (2 alpha + alpha^2) + c^2 (2 beta + beta^2)|
//     <= 2 max(alpha, beta) + max^2: about 4 u_d or 2 u_f, plus at most 3 u_d for
//     the evaluation in double; 4 eps = 8 u_T covers both. The angle's own error
//     does not enter: sin^2 + cos^2 = 1 at any angle.
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <cmath>
#include <limits>

#include "lib_prop_support.hpp"

using namespace attn::libprop;
using attn::Index;

TEMPLATE_TEST_CASE("positional encoding agrees with the exact sinusoids (32.2.5)",
                   "[lib][positional]", float, double) {
  using T = TestType;
  rc::prop("|P(t, c) - exact| <= 2 ulp + 16 u_double |theta| for T_len <= 64 and d <= 32", [] {
    const Index T_len = draw_size(64), d = draw_size(32);
    RC_CLASSIFY(d % 2 == 1, "d odd: the last column is a lone sine");
    RC_CLASSIFY(T_len > 32, "T_len > 32");
    const attn::Matrix<T> P = attn::sinusoidal_positional_encoding<T>(T_len, d);
    RC_ASSERT(P.rows() == T_len);
    RC_ASSERT(P.cols() == d);
    const attn::ref::RealMatrix exact = attn::ref::exact_sinusoidal_positional_encoding(T_len, d);
    for (Index t = 0; t < T_len; ++t)
      for (Index c = 0; c < d; ++c) {
        const Index two_r = c - c % 2;
        const double theta = double(t) / std::pow(10000.0, double(two_r) / double(d));
        const T e = static_cast<T>(exact(t, c));
        const T ulp = std::nextafter(std::abs(e), std::numeric_limits<T>::infinity()) - std::abs(e);
        const double bound = 2 * double(ulp) + 16 * 0x1p-53 * theta;
        const double err = static_cast<double>(abs(attn::ref::Real(P(t, c)) - exact(t, c)));
        if (!(err <= bound))
          RC_LOG() << "P(" << t << ", " << c << ") = " << double(P(t, c)) << ", exact "
                   << static_cast<double>(exact(t, c)) << ", |error| " << err << " > bound "
                   << bound << "\n";
        RC_ASSERT(err <= bound);
      }
  });
}

TEMPLATE_TEST_CASE("positional encoding pairs a sine and a cosine of one angle per frequency",
                   "[lib][positional]", float, double) {
  using T = TestType;
  rc::prop("P(t, 2r)^2 + P(t, 2r+1)^2 == 1 within 4 eps and row 0 is 0 1 0 1 ...", [] {
    const Index T_len = draw_size(64), d = draw_size(32);
    const attn::Matrix<T> P = attn::sinusoidal_positional_encoding<T>(T_len, d);
    RC_ASSERT(P.rows() == T_len);
    RC_ASSERT(P.cols() == d);
    const double tol = 4 * double(std::numeric_limits<T>::epsilon());
    for (Index t = 0; t < T_len; ++t)
      for (Index r = 0; 2 * r + 1 < d; ++r) {
        const double s = P(t, 2 * r), c = P(t, 2 * r + 1);
        const double dev = std::abs(s * s + c * c - 1.0);
        if (!(dev <= tol))
          RC_LOG() << "t = " << t << ", r = " << r << ": sin^2 + cos^2 - 1 = " << dev << "\n";
        RC_ASSERT(dev <= tol);
      }
    // Position 0: every angle is 0, so sines are 0 and cosines 1, exactly.
    for (Index c = 0; c < d; ++c) RC_ASSERT(P(0, c) == (c % 2 == 0 ? T(0) : T(1)));
  });
}
