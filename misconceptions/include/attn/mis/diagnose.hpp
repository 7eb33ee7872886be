#pragma once
// Differential diagnosis of a failing subject.
//
// diagnose() builds a small battery of extra cases for the operation of the
// counterexample, chosen so that the models of the catalogue (and the
// definition) are pairwise far apart there, sends them to the subject, and
// names a misconception only if its model reproduces the subject's answers
// on the whole battery while the definition does not.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "attn/mis/model.hpp"
#include "attn/prop/fully_forbidden.hpp"
#include "attn/prop/subject.hpp"

namespace attn::mis {

/// The battery's fixed cost limits (README.md, "Cost").
inline constexpr std::size_t kMaxBatteryCases = 16;
/// Input plus output entries of all battery cases together.
inline constexpr std::size_t kMaxBatteryEntries = 4000;
/// Two models are told apart by a case when some compared entry differs by
/// more than this many times the larger of their tolerances (tolerances
/// already carry the error bound's safety factors; README.md, "Tolerance").
inline constexpr double kSeparationFactor = 10.0;

/// Language of the submission, for the explanation text: NumPy (a .py
/// file), C++/Eigen (a .cpp file), or neutral (an executable that speaks the
/// protocol itself: no language's idiom is assumed).
enum class Language { numpy, cpp, neutral };

struct Options {
  Language language = Language::numpy;
  std::size_t max_cases = kMaxBatteryCases;      ///< at most kMaxBatteryCases
  std::size_t max_entries = kMaxBatteryEntries;  ///< at most kMaxBatteryEntries
  /// The subject's documented answer for a query row whose every key is
  /// forbidden (`attnlab check --fully-forbidden`). Other than `error` (the
  /// text's rule, Lemma 2), that answer is the definition's: such rows are
  /// taken out of the battery's cases, so fully_forbidden_answered is never
  /// named for a kernel that keeps its own convention.
  attn::prop::FullyForbidden fully_forbidden = attn::prop::FullyForbidden::error;
  /// Counterexamples of the same run's other failed properties (same
  /// operation): evidence for this failure too (one cause, one explanation).
  /// They join the battery after the counterexample while the
  /// counterexamples take at most a quarter of max_entries and of
  /// max_cases, those that separate the most pairs of models first (then
  /// in this order). A model is not
  /// named where it makes a determined claim on one of them that the answers
  /// contradict; one the subject refused, or the definition refuses, is
  /// evidence about the refusal only, judging only a model whose refusal
  /// claim there differs from the definition's (misconceptions/README.md,
  /// "How it decides", 4).
  std::vector<Case> other_failures{};
};

/// One model that reproduces the subject's answers on the whole battery.
struct Fit {
  std::string key;            ///< catalogue key
  std::vector<Param> params;  ///< fitted parameters (first fitting grid value)
  /// Other parameter values that fit as well ("fill=-1e10"), if any.
  std::vector<std::string> also_fits;
};

/// The battery diagnose() would send for this operation and precision
/// (without a counterexample), with the model pairs it leaves unseparated
/// (build_battery below; also kept in a Diagnosis with the answers).
struct Battery {
  std::vector<Case> cases;
  std::vector<std::string> unseparated;
  /// Models (labels) the battery cannot tell from the definition in this
  /// precision (finite_fill(fill=double lowest) in float...): never named.
  std::vector<std::string> like_definition;
  std::size_t entries = 0;
  /// The leading cases that are failures' counterexamples (the diagnosed
  /// one, then Options::other_failures): 0 when none fitted.
  std::size_t counterexamples = 0;
};

struct Diagnosis {
  enum class Verdict {
    misconception,         ///< exactly one family fits: `fits` has it
    several,               ///< several families fit: all in `fits`, see `tell_apart`
    no_known_mistake,      ///< the definition does not fit and no model does
    consistent,            ///< the definition itself fits the whole battery
    fault,                 ///< crash, timeout or malformed reply (Outcome::Kind::fault)
    raises_on_every_call,  ///< every case refused, valid ones included
    /// No one mistake reproduces the answers, but two together do (each in
    /// a different step of the computation: the scale and the fill of
    /// forbidden logits, float32 and an answered fully forbidden row...):
    /// `fits` holds the two, and only one pair of families fits. Or, when
    /// no pair does, three: a pair computed in a lower precision
    /// (`fits` holds the two and the low_precision member, last).
    combined,
  };
  Verdict verdict = Verdict::no_known_mistake;
  std::vector<Fit> fits;
  /// For `combined`: a single mistake that alone also reproduces the
  /// answers but was passed over for the pair (the pair's explanation says
  /// so, never "neither alone does"). `wider`: its tolerance admits the
  /// pair's answers and others (a narrower precision that may hide a second
  /// mistake); otherwise it leaves the fully forbidden rows to the
  /// arithmetic (it may refuse them or answer them) where the pair answers
  /// them as the subject did (more_definite in diagnose.cpp).
  struct AloneFit {
    std::string key;
    bool wider = false;
  };
  std::vector<AloneFit> alone_fits;
  /// For `several`: what would tell the fitting families apart.
  std::string tell_apart;
  /// The explanation for the submission's language (Options::language).
  std::string explanation;
  std::string failed_property;
  Case counterexample;  ///< kept as given
  /// For fault / raises_on_every_call: the error type and message seen.
  std::string error_type, message;
  std::size_t cases_sent = 0;
  std::size_t entries_sent = 0;
  double seconds = 0;
  /// "nan" or "zeros" when the battery's cases were sent without their fully
  /// forbidden query rows (Options::fully_forbidden); empty otherwise.
  std::string fully_forbidden_rows_left_out;
  /// Pairs of candidate models (labels) the battery could not tell apart in
  /// the subject's declared precision; informational.
  std::vector<std::string> unseparated;
  /// The battery sent and the subject's answers, in order (fewer answers
  /// than cases when a fault stopped it; both empty for the backward pass):
  /// the evidence withdraw_contradicted judges other diagnoses' names on.
  Battery battery;
  std::vector<attn::prop::Outcome> answers;
  /// Names withdrawn by withdraw_contradicted, each with the failed
  /// property whose battery answers contradict it: {"finite_fill (fill =
  /// -1e9)", "exact_zeros"}.
  std::vector<std::pair<std::string, std::string>> withdrawn;
};

/// "misconception", "several", "no_known_mistake", "consistent", "fault",
/// "raises_on_every_call", "combined".
const char* verdict_name(Diagnosis::Verdict v);

/// Diagnoses `subject` given the counterexample of `failed_property`.
/// The operation is counterexample.op. Sends at most min(options.max_cases,
/// kMaxBatteryCases) cases (the counterexample included when it fits the
/// entry budget) and never throws for a misbehaving subject; throws
/// std::invalid_argument if the operation is not supported by the subject.
Diagnosis diagnose(attn::prop::Subject& subject, const Case& counterexample,
                   const std::string& failed_property, const Options& options = {});

/// One cause, one explanation across a report: withdraws from `d` every
/// name (a misconception's or several's family, a combined pair) whose
/// model does not reproduce the answers of another diagnosis of the same
/// subject and operation in `others` (their whole batteries, as kept in
/// Diagnosis::battery and answers; the rule of diagnose's own fit, on the
/// cases each model is judged on). Nothing is sent to the subject. A
/// withdrawn name is recorded in d.withdrawn; d's verdict becomes several,
/// misconception or no_known_mistake by what is left, and its explanation
/// (in `language`) says which property's answers ruled the name out. When
/// nothing is left, the name of another diagnosis in `others` (one
/// mistake or one combination) whose model reproduces d's own battery and
/// every other one becomes d's, its explanation beginning "Named as under
/// <that property>".
/// Diagnoses of the backward pass, and entries of `others` that are `d`
/// itself or of another operation, are left alone. Returns whether a name
/// was withdrawn.
bool withdraw_contradicted(Diagnosis& d, const std::vector<const Diagnosis*>& others,
                           const attn::prop::Subject& subject, Language language);

/// Machine-readable form: {"verdict", "keys", "fits": [{"key", "params":
/// {name: value}, "param_text": {name: text}, "also_fits"}], "tell_apart",
/// "explanation", "failed_property", "cases_sent", "entries_sent", "seconds",
/// "error_type", "message"}.
std::string to_json(const Diagnosis& d);

/// The battery diagnose() would send for this operation and precision
/// (without a counterexample: for tests and the README's cost table).
Battery build_battery(Operation op, const Precision& declared, bool returns_weights,
                      const Case* counterexample, const Options& options = {});

/// Every candidate model for an operation (the definition first).
std::vector<Model> candidate_models(Operation op, const Precision& declared);

}  // namespace attn::mis
