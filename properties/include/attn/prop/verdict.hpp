#pragma once
// The result of checking one property on one subject (docs/ARCHITECTURE.md, "Data flow").

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>

#include "attn/prop/case.hpp"
#include "attn/prop/outcome.hpp"

namespace attn::prop {

/// What a property's statement is about, which decides what its failure can
/// charge (properties/README.md, "One fault, one charge").
enum class PropertyKind {
  value,        ///< the answers to a case, held to the oracle, a lemma or a printed value
  refusal,      ///< an input outside the definition is refused (its valid twin answered)
  metamorphic,  ///< the answers to two related cases agree as a lemma says they must
};

/// What to tell a student whose submission fails the property when the
/// failure's shape says nothing more precise (the grader's feedback adds the
/// facts an outcome shows: a fault, a refusal of a valid input, a wrong shape).
/// Plain text; empty headline: no hint.
struct PropertyHint {
  std::string headline;  ///< the fact, lower case, no final stop: "a row of A is not ..."
  std::string advice;    ///< what the definition asks and how to get there
  std::string cites;     ///< the section, lemma or paper ("Lemma 2, section 32.2.4")
};

/// Where one property's run on one subject ended: exactly one of these, and
/// the fields beside it that say more (Verdict).
enum class VerdictStatus {
  passed,   ///< every case run agreed (`cases`; `regimes` says which were left to others)
  failed,   ///< a case failed: `failure` and `counterexample` say how; with `stop_reason`
            ///< set, the run was stopped after it (the case may be only partly shrunk)
  error,    ///< the run could not be done: `error` says why (the subject lacks the
            ///< operation, an exception escaped the check, the generator gave up)
  not_run,  ///< the subject stopped (`stop_reason`) before the run was complete and nothing
            ///< had failed: not passed ("NOT RUN"); `cases` passed before the stop
  skipped,  ///< not applicable to this subject (`error` says why): counted neither way
};

/// The entry where a subject's answer is furthest from what was expected.
struct WorstEntry {
  std::string matrix;  ///< "A", "O", "row sum of A"...
  Index row = -1;
  Index col = -1;      ///< -1 for a per-row quantity (a row sum)
  double expected = 0;
  double actual = 0;
  double error = 0;    ///< |actual - expected|
  double bound = 0;    ///< the allowed error there (0 for exact properties)
};

/// Why one case failed a property.
struct Failure {
  std::string summary;                ///< one line: what is wrong
  std::optional<WorstEntry> worst;    ///< where, if a value is wrong
  Index marked_row = -1;              ///< the offending query row, if any
  std::optional<Outcome> outcome;     ///< what the subject answered
  /// The case `outcome` answers, when the property ran other cases than the
  /// counterexample (a metamorphic property: the keys deleted, the naive
  /// form); unset: the counterexample. Feedback reads the answer against it.
  std::optional<Case> answered;
  /// The case the report shows as the counterexample when it is not the
  /// generated one (run_property puts it in Verdict::counterexample), so the
  /// matrices, the shape line, the answer and the reproduction are one case:
  /// a refusal property's valid case when the faulty input was refused but
  /// the valid one answered wrongly, or its faulty input when that was sent
  /// beside a valid generated case and not refused.
  std::optional<Case> shown;
};

struct Verdict {
  std::string property_id;  ///< "row_stochastic"
  std::string title;        ///< "Rows of A are non-negative and sum to 1"
  std::string source;       ///< "F1 (32.2.8), Definition 32.2.2"
  std::string subject;
  PropertyKind kind = PropertyKind::value;  ///< the property's (Property::kind)
  PropertyHint hint;                        ///< the property's (Property::hint)
  /// Where the run ended; an undecided verdict is a failure until the
  /// run says otherwise.
  VerdictStatus status = VerdictStatus::failed;
  int cases = 0;            ///< cases run (successful ones when passed)
  std::uint64_t seed = 0;   ///< replays the run
  std::optional<Case> counterexample;  ///< the shrunk failing case
  bool generated = true;    ///< false when the case is one of the text's fixed examples
  std::optional<Failure> failure;
  std::string error;        ///< why it was skipped or could not run (status skipped, error)
  /// Set when the subject stopped running cases before this property's run
  /// was complete (a grader's limit: restarts, timeouts, time budget): why,
  /// as a clause ("the submission used up its time budget of 2 s"). Status
  /// failed: the failure is a real one found before the stop; status
  /// not_run: nothing failed before it.
  std::string stop_reason;
  /// Cases per regime tag (a case may carry several tags).
  std::map<std::string, int> regimes;

  bool passed() const { return status == VerdictStatus::passed; }
  bool skipped() const { return status == VerdictStatus::skipped; }
  /// Counted against the subject: failed, error or not run (neither passed
  /// nor skipped).
  bool counts_as_failed() const { return !passed() && !skipped(); }
};

/// Moves the failure's Failure::shown case, if any, into
/// v.counterexample, so the counterexample a report shows is the case the
/// failure's answer is to (a refusal property's valid case, or the faulty
/// input it sent) and its matrices, shape, answer and reproduction agree.
/// run_property does this; a caller that sets a failure itself calls it.
void show_failure_case(Verdict& v);

/// Human-readable report of one verdict: PASS/FAIL line, and for a failure the
/// counterexample as matrices, the worst entry (expected vs actual, error vs
/// bound) and the seed.
void print_verdict(std::ostream& os, const Verdict& v);

/// The cases the verdict left to another property (one fault, one charge:
/// properties/README.md), a line per kind after `indent`: "not judged
/// here: a refused valid input, charged to score_shape alone (12 cases)".
/// Nothing when it left none. print_verdict prints them for a pass.
void print_left_cases(std::ostream& os, const Verdict& v, const std::string& indent = "  ");

/// "regime: share%" lines for the regime counts of a verdict.
void print_regimes(std::ostream& os, const Verdict& v);

}  // namespace attn::prop
