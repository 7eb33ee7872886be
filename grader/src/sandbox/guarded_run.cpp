// run_guarded: a property run that never reports cases the subject did not run.
#include "sandbox/guarded_run.hpp"

namespace attn::grader {

using attn::prop::Case;
using attn::prop::Failure;
using attn::prop::Subject;
using attn::prop::Verdict;

Verdict run_guarded(const attn::prop::Property& p, Subject& s, const attn::prop::RunConfig& cfg,
                    const StopCheck& stopped) {
  std::optional<Case> real_case;
  std::optional<Failure> real_failure;
  int passed_before = 0;

  attn::prop::Property guarded = p;
  guarded.check = [&](Subject& subject, const Case& c) -> std::optional<Failure> {
    // Past the stop nothing is run. Calling every later case a pass ends
    // RapidCheck's shrinking at the last real failure (and its generation
    // quickly); the verdict is rewritten below in any case.
    if (stopped()) return std::nullopt;
    std::optional<Failure> f = p.check(subject, c);
    if (stopped()) return std::nullopt;  // the check met a case that was not run
    if (f) {
      real_case = c;
      real_failure = f;
    } else if (!real_failure) {
      ++passed_before;
    }
    return f;
  };

  Verdict v = attn::prop::run_property(guarded, s, cfg);
  const std::optional<std::string> why = stopped();
  if (!why) return v;
  if (v.skipped()) return v;  // not applicable: nothing was to be run
  v.stop_reason = *why;
  if (real_failure) {
    v.status = attn::prop::VerdictStatus::failed;
    v.counterexample = std::move(real_case);
    v.failure = std::move(real_failure);
    attn::prop::show_failure_case(v);
  } else {
    v.status = attn::prop::VerdictStatus::not_run;
    v.counterexample.reset();
    v.failure.reset();
    v.cases = passed_before;
  }
  return v;
}

}  // namespace attn::grader
