#include "attn/prop/bound_stats.hpp"

namespace attn::prop {

namespace {
thread_local BoundStats stats;
}

BoundStats bound_stats() { return stats; }
void reset_bound_stats() { stats = BoundStats{}; }

void record_bound_ratio(double ratio, long long entries, const std::string& where) {
  stats.entries += entries;
  if (ratio > stats.max_ratio) {
    stats.max_ratio = ratio;
    stats.where = where;
  }
}

}  // namespace attn::prop
