#pragma once
// Numbers in the demonstrations' and the experiment's tables and captions.

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>

namespace attn::grader {

/// `x` with `digits` digits after the point ("0.3302"); "NaN" for NaN.
inline std::string fixed_text(double x, int digits = 4) {
  if (std::isnan(x)) return "NaN";
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << x;
  return os.str();
}

}  // namespace attn::grader
