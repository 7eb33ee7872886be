#pragma once
// Pieces shared by the feedback map's detectors (private to grader/src).

#include <optional>
#include <string>
#include <vector>

#include "attn/grader/feedback.hpp"

namespace attn::grader {

/// The hint for the mistakes in `found`, each of which gives the answer seen
/// on this case: nullopt for none, the one hint for one, and for several a
/// hint with key `key` and misconception `misconception` whose advice names
/// each of them (misconception and key), then `closing`.
std::optional<Hint> one_or_all(const std::vector<Hint>& found, const std::string& key,
                               const std::string& misconception, const std::string& closing);

}  // namespace attn::grader
