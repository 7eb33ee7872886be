// Pieces shared by the feedback map's detectors (feedback_parts.hpp).
#include "diagnosis/feedback_parts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::grader {

using attn::Index;
using attn::prop::DMatrix;

DMatrix softmax_rows(const DMatrix& S, const Allowed& allowed) {
  DMatrix A = DMatrix::Zero(S.rows(), S.cols());
  for (Index i = 0; i < S.rows(); ++i) {
    double m = -std::numeric_limits<double>::infinity();
    for (Index j = 0; j < S.cols(); ++j)
      if (allowed(i, j)) m = std::max(m, S(i, j));
    if (!std::isfinite(m)) {
      A.row(i).setConstant(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    double sum = 0;
    for (Index j = 0; j < S.cols(); ++j)
      if (allowed(i, j)) sum += (A(i, j) = std::exp(S(i, j) - m));
    A.row(i) /= sum;
  }
  return A;
}

Hint shape_hint(std::string key, std::string misconception, std::string advice, std::string cites) {
  return Hint{std::move(key), std::move(misconception), std::move(advice), std::move(cites), true};
}

std::optional<Hint> one_or_all(const std::vector<Hint>& found, const std::string& key,
                               const std::string& misconception, const std::string& closing) {
  if (found.empty()) return std::nullopt;
  if (found.size() == 1) return found.front();
  Hint all = found.front();
  all.key = key;
  all.misconception = misconception;
  all.advice = "On this case the answer equals what each of these computes:";
  for (const Hint& f : found) all.advice += " " + f.misconception + " [" + f.key + "];";
  all.advice.back() = '.';
  all.advice += " " + closing;
  return all;
}

}  // namespace attn::grader
