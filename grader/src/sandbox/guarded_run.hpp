#pragma once
// Running a property on a subject that may stop running cases part way: a
// submission process past its restart or timeout cap, or past its time
// budget, answers every further case with a "not run" fault at once.
// RapidCheck would take those faults for failures and shrink onto them,
// showing a made-up counterexample (a 1x1 case the submission never saw).
// run_guarded keeps such cases out of the verdict: it reports the smallest
// real failure found before the stop, or, if there was none, that the
// property was not run (Verdict::not_run), never a fabricated failure.

#include <functional>
#include <optional>
#include <string>

#include "attn/prop/property.hpp"

namespace attn::grader {

/// Why the subject has stopped running cases since the property started
/// (a clause: "the submission used up its time budget of 2 s"), or nullopt
/// while it still runs them.
using StopCheck = std::function<std::optional<std::string>()>;

/// attn::prop::run_property(p, s, cfg), except that once `stopped` says the
/// subject stopped running cases the verdict is
/// - a failure, if a case failed for real before the stop: the last such
///   case (RapidCheck only moves to smaller failing cases, so the smallest
///   found) with its failure, and Verdict::not_run saying why it stopped;
/// - otherwise not passed, without failure or counterexample, with
///   Verdict::not_run set and Verdict::cases the cases that passed before.
/// Checks after the stop do not call the subject.
attn::prop::Verdict run_guarded(const attn::prop::Property& p, attn::prop::Subject& s,
                                const attn::prop::RunConfig& cfg, const StopCheck& stopped);

}  // namespace attn::grader
