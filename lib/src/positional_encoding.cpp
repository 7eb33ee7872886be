
#include <cmath>
#include <string>

#include "attn/errors.hpp"
#include "core.hpp"

namespace attn::core {

template <class T>
Matrix<T> sinusoidal_positional_encoding(Index T_len, Index d) {
  if (T_len < 0 || d < 0)
    throw ShapeError("sinusoidal_positional_encoding: negative size T x d = " +
                     shape_text(T_len, d));
  Matrix<T> P(T_len, d);
  for (Index c = 0; c < d; ++c) {
    // Columns 2r and 2r + 1 share the frequency 1 / 10000^(2r/d).
    const Index two_r = c - c % 2;
    const double wavelength_scale =
        std::pow(10000.0, static_cast<double>(two_r) / static_cast<double>(d));
    const bool is_sine = c % 2 == 0;
    for (Index t = 0; t < T_len; ++t) {
      const double angle = static_cast<double>(t) / wavelength_scale;
      P(t, c) = static_cast<T>(is_sine ? std::sin(angle) : std::cos(angle));
    }
  }
  return P;
}

template Matrix<float> sinusoidal_positional_encoding(Index, Index);
template Matrix<double> sinusoidal_positional_encoding(Index, Index);

}  // namespace attn::core
