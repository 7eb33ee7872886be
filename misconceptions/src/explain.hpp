#pragma once
// The explanation text of a diagnosis, for NumPy or C++/Eigen (private).

#include <string>

#include "attn/mis/diagnose.hpp"

namespace attn::mis::detail {

/// A few sentences: what the battery showed and what to change, in the
/// idiom of the submission's language; `declared`: the subject's declared
/// precision (the advice for low_precision depends on it).
std::string explanation(const Diagnosis& d, Language lang, const attn::prop::Precision& declared);

/// A fit's parameters as the explanation says them: " (fill = -1e9; also
/// consistent with fill=-1e10, fill=-1e20)", or "".
std::string params_text(const Fit& f);

/// The verdict of a single-mistake search from its fits: no_known_mistake
/// (none), misconception (one), or several, with what tells each apart
/// (its family's `told_apart_by`) in `tell_apart`. The forward's and the
/// backward's diagnoses decide alike.
void set_verdict_from_fits(Diagnosis& d);

}  // namespace attn::mis::detail
