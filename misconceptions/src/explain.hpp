#pragma once
// The explanation text of a diagnosis, for NumPy or C++/Eigen (private).

#include <string>

#include "attn/mis/diagnose.hpp"

namespace attn::mis::detail {

/// A few sentences: what the battery showed and what to change, in the
/// idiom of the submission's language.
std::string explanation(const Diagnosis& d, Language lang);

}  // namespace attn::mis::detail
