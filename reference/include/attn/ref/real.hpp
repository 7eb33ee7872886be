#pragma once
// The oracle's number type: 50 significant decimal digits (Boost.Multiprecision).
// Every double converts to it exactly (a double has 53 bits; this has ~166).

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cstddef>
#include <vector>

namespace attn::ref {

using Real = boost::multiprecision::cpp_bin_float_50;

/// A dense row-major matrix of Real, kept deliberately simple (plain loops in
/// the oracle, no expression templates) so that it is written straight from
/// the definitions and does not depend on lib/.
struct RealMatrix {
  std::ptrdiff_t rows = 0;
  std::ptrdiff_t cols = 0;
  std::vector<Real> data;

  RealMatrix() = default;
  RealMatrix(std::ptrdiff_t r, std::ptrdiff_t c) : rows(r), cols(c), data(std::size_t(r * c)) {}
  Real& operator()(std::ptrdiff_t i, std::ptrdiff_t j) { return data[std::size_t(i * cols + j)]; }
  const Real& operator()(std::ptrdiff_t i, std::ptrdiff_t j) const {
    return data[std::size_t(i * cols + j)];
  }
};

}  // namespace attn::ref
