#pragma once
// The candidate cases a battery is chosen from (private). Each targets a
// regime where some mistakes show (README.md, "The battery").

#include <vector>

#include "attn/mis/model.hpp"

namespace attn::mis::detail {

/// Candidates for op, inputs representable in the declared precision.
std::vector<Case> candidate_cases(Operation op, const Precision& declared);

/// The tags of the candidates chosen only once the single models are
/// separated (build_battery's second round: the fills composed with
/// float32), so that they never displace a case the single models need.
inline constexpr const char* kAddedFillLevels = "added fill levels";
inline constexpr const char* kFloatLowestTie = "allowed logits at float lowest";

/// Entries of a case's inputs and of its answer (for the cost budget).
std::size_t case_entries(const Case& c);

}  // namespace attn::mis::detail
