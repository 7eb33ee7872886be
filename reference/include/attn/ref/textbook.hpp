#pragma once
// The numbers printed in the two source pages (the Hungarian section 32.2 and
// the Russian section 14.3 on scaled dot-product attention), as data.
// Printed values have 4 decimals and are checked at the text's absolute
// tolerance 1e-4 (section 32.2.7); everything else is checked against the
// oracle within the error bound.

#include <Eigen/Core>
#include <limits>

namespace attn::ref::textbook {

using DMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using BoolMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The text's tolerance for its 4-decimal values (32.2.7: np.allclose, atol 1e-4).
inline constexpr double kPrintedTolerance = 1e-4;

inline DMatrix rows(std::initializer_list<std::initializer_list<double>> r) {
  DMatrix M(static_cast<Eigen::Index>(r.size()), static_cast<Eigen::Index>(r.begin()->size()));
  Eigen::Index i = 0;
  for (const auto& row : r) {
    Eigen::Index j = 0;
    for (double x : row) M(i, j++) = x;
    ++i;
  }
  return M;
}

/// Section 32.2.6, the two-token example: d_k = 2, d_v = 3, T = 2.
struct TwoToken {
  DMatrix Q = rows({{1, 0}, {0, 1}});
  DMatrix K = rows({{1, 1}, {2, 0}});
  DMatrix V = rows({{1, 0, 0}, {0, 1, 0}});
  /// Printed: S = (1/sqrt2) [[1, 2], [1, 0]] ~ [[0.70710678, 1.41421356], [0.70710678, 0]].
  DMatrix S = rows({{0.70710678, 1.41421356}, {0.70710678, 0.0}});
  /// Printed exponentials and row sums: e^0.7071 ~ 2.0281, e^1.4142 ~ 4.1133,
  /// sum 6.1414; second row 2.0281 + 1 = 3.0281.
  DMatrix exp_S = rows({{2.0281, 4.1133}, {2.0281, 1.0}});
  DMatrix Z = rows({{6.1414}, {3.0281}});
  DMatrix A = rows({{0.3302, 0.6698}, {0.6698, 0.3302}});
  DMatrix O = rows({{0.3302, 0.6698, 0}, {0.6698, 0.3302, 0}});
  /// The causal mask of the example: M_12 = 1 (query 1 may not see key 2).
  BoolMatrix causal = (BoolMatrix(2, 2) << false, true, false, false).finished();
  DMatrix A_masked = rows({{1, 0}, {0.6698, 0.3302}});
  DMatrix O_masked = rows({{1, 0, 0}, {0.6698, 0.3302, 0}});
};

/// F2 (32.2.8-9): S = [[0, 2, -inf], [1, -1, 0]] and its masked softmax;
/// the printed denominators are 8.3891 and 4.0862.
struct F2 {
  DMatrix S = rows({{0, 2, -std::numeric_limits<double>::infinity()}, {1, -1, 0}});
  DMatrix A = rows({{0.1192, 0.8808, 0}, {0.6652, 0.0900, 0.2447}});
  DMatrix Z = rows({{8.3891}, {4.0862}});
};

/// F4 (32.2.9): zeroing the forbidden weight after the softmax leaves the
/// first row of the two-token example as (0.3302, 0), which sums to 0.3302.
struct F4 {
  DMatrix A_buggy = rows({{0.3302, 0}, {0.6698, 0.3302}});
  double buggy_row_sum = 0.3302;
  Eigen::Index buggy_row = 0;
};

/// Section 14.3 (Russian page): query [1, 1] against keys [1,0], [0,1], [1,1]:
/// dot products [1, 1, 2], scaled by 1/sqrt(2): [1/sqrt2, 1/sqrt2, sqrt2].
struct Scale143 {
  DMatrix Q = rows({{1, 1}});
  DMatrix K = rows({{1, 0}, {0, 1}, {1, 1}});
  DMatrix dots = rows({{1, 1, 2}});
  DMatrix S = rows({{0.7071, 0.7071, 1.4142}});
};

/// Section 32.2.10, the weight-is-not-contribution counterexample:
/// A = (0.1, 0.9), v1 = (10, 0), v2 = (-1, 0) give o = (0.1, 0).
struct Counterexample3210 {
  DMatrix A = rows({{0.1, 0.9}});
  DMatrix V = rows({{10, 0}, {-1, 0}});
  DMatrix O = rows({{0.1, 0}});
};

}  // namespace attn::ref::textbook
