#pragma once
// Pieces shared by the feedback map's detectors (feedback.cpp and the
// detectors of the library operations; private to grader/src).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "diagnosis/feedback.hpp"
#include "attn/prop/case.hpp"

namespace attn::grader {

/// Which entries (query i, key j) a softmax runs over.
using Allowed = std::function<bool(attn::Index, attn::Index)>;

/// Stable softmax of every row of `S` over the entries `allowed`, in double;
/// the others get 0. A row with nothing allowed is NaN (undefined).
attn::prop::DMatrix softmax_rows(const attn::prop::DMatrix& S, const Allowed& allowed);

/// A hint recognised from the failure's shape (Hint::from_shape true).
Hint shape_hint(std::string key, std::string misconception, std::string advice, std::string cites);

/// The hint for the mistakes in `found`, each of which gives the answer seen
/// on this case: nullopt for none, the one hint for one, and for several a
/// hint with key `key` and misconception `misconception` whose advice names
/// each of them (misconception and key), then `closing`.
std::optional<Hint> one_or_all(const std::vector<Hint>& found, const std::string& key,
                               const std::string& misconception, const std::string& closing);

}  // namespace attn::grader
