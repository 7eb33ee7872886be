#include "row_softmax.hpp"
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
void row_softmax(std::vector<double>& row, const std::vector<bool>& forbidden) {
  double m = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < row.size(); ++j)
    if (!forbidden[j]) {
      if (std::isnan(row[j]) || row[j] == std::numeric_limits<double>::infinity())
        throw std::domain_error("logit overflows");
      m = std::max(m, row[j]);
    }
  if (m == -std::numeric_limits<double>::infinity()) throw std::domain_error("no allowed key");
  double z = 0;
  for (std::size_t j = 0; j < row.size(); ++j) z += (row[j] = forbidden[j] ? 0.0 : std::exp(row[j] - m));
  for (double& x : row) x /= z;
}
