#pragma once
// How close answers come to the error bound: the evidence that the bound is
// safe (ratio < 1 everywhere) and not vacuous (ratio not tiny). Collected by
// oracle_agreement for every compared entry, per thread.

#include <string>

namespace attn::prop {

struct BoundStats {
  double max_ratio = 0;    ///< largest |actual - exact| / bound seen
  std::string where;       ///< which output, precision and regimes of that case
  long long entries = 0;   ///< entries compared
};

/// The statistics collected on this thread since the last reset.
BoundStats bound_stats();
void reset_bound_stats();
/// Adds one comparison's worst ratio (called by the properties).
void record_bound_ratio(double ratio, long long entries, const std::string& where);

}  // namespace attn::prop
