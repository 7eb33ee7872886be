// BudgetSubject: the per-submission time limit.
#include "sandbox/budget_subject.hpp"

#include <utility>

#include "sandbox/exit_status.hpp"

namespace attn::grader {

BudgetSubject::BudgetSubject(attn::prop::Subject& inner, std::chrono::milliseconds budget,
                             std::chrono::steady_clock::time_point start, std::string option)
    : inner_(inner), budget_(budget), deadline_(start + budget), option_(std::move(option)) {}

bool BudgetSubject::spent() const {
  return budget_.count() > 0 && std::chrono::steady_clock::now() >= deadline_;
}

std::string BudgetSubject::stop_reason() const {
  return "the submission used up its time budget of " + describe_duration(budget_) +
         " (" + option_ + ")";
}

attn::prop::Outcome BudgetSubject::run(const attn::prop::Case& c) {
  if (spent()) {
    exhausted_ = true;
    ++not_run_;
    return attn::prop::Outcome::make_fault("not run: " + stop_reason() +
                                           ", so later cases are skipped");
  }
  return inner_.run(c);
}

}  // namespace attn::grader
