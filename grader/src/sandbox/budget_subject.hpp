#pragma once
// BudgetSubject: the per-submission time limit. Wraps the submission's
// subject; once the budget (wall clock, from construction) is used up, every
// further case is a fault without running ("not run: the submission used up
// its time budget of 600 s"); the grader reports the properties it cuts
// short as not run (grade.cpp), never with a counterexample made of such
// faults. A case
// already running when the budget ends still has its own per-case timeout,
// so grading overruns the budget by at most one per-case timeout.

#include <chrono>
#include <string>

#include "attn/prop/subject.hpp"

namespace attn::grader {

class BudgetSubject : public attn::prop::Subject {
 public:
  /// `budget` of zero or less: no limit. It counts from `start` (default:
  /// now); `option` is the command-line option that set it, named in
  /// stop_reason().
  BudgetSubject(attn::prop::Subject& inner, std::chrono::milliseconds budget,
                std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(),
                std::string option = "--submission-timeout");

  std::string name() const override { return inner_.name(); }
  attn::prop::Precision precision() const override { return inner_.precision(); }
  bool supports(attn::prop::Operation op) const override { return inner_.supports(op); }
  bool returns_weights() const override { return inner_.returns_weights(); }
  attn::prop::Outcome run(const attn::prop::Case& c) override;

  /// True once a case was refused for the budget.
  bool exhausted() const { return exhausted_; }
  /// True once the budget is used up (whether or not a case was refused yet).
  bool spent() const;
  /// Cases refused for the budget.
  int not_run() const { return not_run_; }
  /// Why cases are refused, as a clause: "the submission used up its time
  /// budget of 2 s (--submission-timeout)" (the option given at construction).
  std::string stop_reason() const;
  std::chrono::milliseconds budget() const { return budget_; }

 private:
  attn::prop::Subject& inner_;
  std::chrono::milliseconds budget_;
  std::chrono::steady_clock::time_point deadline_;
  std::string option_;
  bool exhausted_ = false;
  int not_run_ = 0;
};

}  // namespace attn::grader
