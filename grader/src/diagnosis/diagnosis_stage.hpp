#pragma once
// The diagnosis stage: after grading, each failed property's
// counterexample goes to attn::mis::diagnose, which sends a small battery of
// extra cases to the submission and names a misconception only if its model
// reproduces every answer while the definition does not
// (misconceptions/README.md). The stage runs after every property has been
// graded, so it never changes a verdict or a score; it caches by operation
// and counterexample, so a submission is diagnosed at most once per distinct
// counterexample, and its cost is bounded by the engine's limits
// (attn::mis::kMaxBatteryCases cases of at most kMaxBatteryEntries entries
// per diagnosis, each case under the subject's own per-call timeout).

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attn/mis/diagnose.hpp"
#include "attn/prop/subject.hpp"
#include "attn/prop/verdict.hpp"

namespace attn::prop {
struct Property;  // attn/prop/property.hpp
}  // namespace attn::prop

namespace attn::grader {

/// What the diagnosis stage says about one failed verdict.
struct FailureDiagnosis {
  enum class Status {
    diagnosed,       ///< the engine ran: see `engine`
    not_applicable,  ///< nothing to diagnose (no counterexample, answers item, grader error)
    not_run,         ///< the time budget (or a restart cap) stopped it: no claim at all
  };
  Status status = Status::not_applicable;
  attn::mis::Diagnosis engine;  ///< when diagnosed
  std::string why_not;          ///< when not_applicable or not_run: a clause
  /// The same operation and counterexample were diagnosed for an earlier
  /// property: its result is reused (no case sent again).
  bool cached = false;
  /// The property an earlier identical diagnosis was made for (when cached).
  std::string cached_from;
  /// The name of a narrower precision ("float32") at whose error bounds the
  /// failed property holds on the counterexample (attn::prop::
  /// holds_at_precision): the departure is that precision's rounding, and
  /// feedback says so instead of the property's generic hint. Empty: the
  /// failure is louder than that, or it was not tried (a subject declaring
  /// less than float64, a property given no Property, a stopped run).
  std::string within_precision;
  /// Set by the text report: an earlier failed property's diagnosis named
  /// the same mistakes (same verdict, keys and parameters), so this one is
  /// said in a line pointing to it (one cause, one explanation).
  std::string same_as_property;
};

/// Keys named by a diagnosis (misconception or several); empty otherwise.
std::vector<std::string> misconception_keys(const FailureDiagnosis& d);

/// Fitted parameters: key -> {name: value} (one entry per named key, an
/// empty map for a parameterless key).
std::map<std::string, std::map<std::string, double>> fitted_parameters(const FailureDiagnosis& d);

/// "misconception", "several", "no_known_mistake", "consistent", "fault",
/// "raises_on_every_call", "not_applicable", "not_run".
std::string diagnosis_status_name(const FailureDiagnosis& d);

/// Returns why the stage must stop (the submission's time budget is used
/// up, a restart cap was reached), or nullopt to go on.
using DiagnosisStop = std::function<std::optional<std::string>()>;

class DiagnosisStage {
 public:
  /// `subject`: the submission as graded (in the grader, the time budget
  /// wrapping the ProcessSubject); `language`: the explanation's idiom;
  /// `stopped`: checked after each diagnosis (a budget that ran out during it
  /// makes it not_run, never a fault or a misconception); `fully_forbidden`:
  /// the subject's documented answer for a fully forbidden row
  /// (attn::mis::Options::fully_forbidden).
  DiagnosisStage(attn::prop::Subject& subject, attn::mis::Language language,
                 DiagnosisStop stopped = nullptr,
                 attn::prop::FullyForbidden fully_forbidden = attn::prop::FullyForbidden::error);

  /// Diagnoses a verdict. Passes, skips, verdicts without a counterexample
  /// (the answers item, a grader error, not run) and batched_attention
  /// counterexamples (misconceptions/ models none of that operation, so no
  /// misconception is ever named for it) are not_applicable. Never
  /// throws: an operation the engine or subject does not support is
  /// not_applicable with the reason.
  /// With `property` (the Property that gave `v`), a failure of a subject
  /// declaring float64 is then judged at float32's bounds on its
  /// counterexample (FailureDiagnosis::within_precision; one or two more
  /// cases sent, not when stopped).
  /// The counterexamples of the other failures of the run (those given to
  /// add_failure, else those diagnosed before it in this stage) are
  /// evidence for it (attn::mis::Options::other_failures): a mistake one of
  /// them contradicts is not named.
  FailureDiagnosis diagnose(const attn::prop::Verdict& v,
                            const attn::prop::Property* property = nullptr);

  /// Registers a failed verdict's counterexample as evidence for every
  /// diagnosis of this stage, the earlier and the later ones (a mistake a
  /// failure shown in the same report contradicts is named for none).
  void add_failure(const attn::prop::Verdict& v);

  /// One cause, one explanation across the report: once every failure is
  /// diagnosed, a name one diagnosis gives that another diagnosis's battery
  /// answers contradict is withdrawn (attn::mis::withdraw_contradicted; no
  /// case is sent). `diagnoses`: this stage's results for the report.
  void withdraw_contradicted(std::vector<std::optional<FailureDiagnosis>>& diagnoses) const;

  /// Engine runs made (cache misses), cases and entries sent, seconds spent.
  int runs() const { return runs_; }
  std::size_t cases_sent() const { return cases_; }
  double seconds() const { return seconds_; }

 private:
  FailureDiagnosis diagnose_engine(const attn::prop::Verdict& v);
  void add_case(const attn::prop::Case& c);
  attn::prop::Subject& subject_;
  attn::mis::Language language_;
  DiagnosisStop stopped_;
  attn::prop::FullyForbidden fully_forbidden_;
  std::map<std::string, FailureDiagnosis> cache_;
  std::vector<attn::prop::Case> failed_;  ///< counterexamples of the failures registered or diagnosed so far
  int runs_ = 0;
  std::size_t cases_ = 0;
  double seconds_ = 0;
};

}  // namespace attn::grader
