// The diagnosis stage (diagnosis_stage.hpp).
#include "diagnosis/diagnosis_stage.hpp"
#include "attn/prop/catalog.hpp"
#include "attn/prop/memo_subject.hpp"

#include <exception>
#include <set>
#include <string>
#include <utility>

namespace attn::grader {
using attn::mis::Diagnosis;
using attn::prop::case_key;

std::vector<std::string> misconception_keys(const FailureDiagnosis& d) {
  std::vector<std::string> keys;
  if (d.status != FailureDiagnosis::Status::diagnosed) return keys;
  const auto v = d.engine.verdict;
  if (v != Diagnosis::Verdict::misconception && v != Diagnosis::Verdict::several &&
      v != Diagnosis::Verdict::combined)
    return keys;
  for (const auto& f : d.engine.fits) keys.push_back(f.key);
  return keys;
}

std::map<std::string, std::map<std::string, double>> fitted_parameters(const FailureDiagnosis& d) {
  std::map<std::string, std::map<std::string, double>> out;
  if (misconception_keys(d).empty()) return out;
  for (const auto& f : d.engine.fits) {
    auto& params = out[f.key];
    for (const auto& p : f.params) params[p.name] = p.value;
  }
  return out;
}

std::string diagnosis_status_name(const FailureDiagnosis& d) {
  switch (d.status) {
    case FailureDiagnosis::Status::diagnosed: return attn::mis::verdict_name(d.engine.verdict);
    case FailureDiagnosis::Status::not_applicable: return "not_applicable";
    case FailureDiagnosis::Status::not_run: return "not_run";
  }
  return "not_applicable";
}

DiagnosisStage::DiagnosisStage(attn::prop::Subject& subject, attn::mis::Language language,
                               DiagnosisStop stopped, attn::prop::FullyForbidden fully_forbidden)
    : subject_(subject), language_(language), stopped_(std::move(stopped)),
      fully_forbidden_(fully_forbidden) {}

void DiagnosisStage::withdraw_contradicted(
    std::vector<std::optional<FailureDiagnosis>>& diagnoses) const {
  // Every battery is judged as it was answered (a copy: a name withdrawn
  // from one diagnosis leaves the evidence of the others unchanged).
  std::vector<attn::mis::Diagnosis> evidence;
  for (const auto& d : diagnoses)
    if (d && d->status == FailureDiagnosis::Status::diagnosed) evidence.push_back(d->engine);
  std::vector<const attn::mis::Diagnosis*> others;
  for (const auto& e : evidence) others.push_back(&e);
  for (auto& d : diagnoses)
    if (d && d->status == FailureDiagnosis::Status::diagnosed)
      attn::mis::withdraw_contradicted(d->engine, others, subject_, language_);
}

FailureDiagnosis DiagnosisStage::diagnose(const attn::prop::Verdict& v,
                                          const attn::prop::Property* property) {
  FailureDiagnosis out = diagnose_engine(v);
  const attn::prop::Precision declared = subject_.precision();
  const bool float64 = declared.storage == attn::ref::NumberFormat::float64 &&
                       declared.accumulate == attn::ref::NumberFormat::float64;
  if (!property || !float64 || !v.counts_as_failed() || !v.failure || !v.counterexample ||
      out.status == FailureDiagnosis::Status::not_run || (stopped_ && stopped_()))
    return out;
  // A mistake of logic the battery named (wrong_scale, ...) explains the
  // failure; that its counterexample, shrunk to small numbers, also holds
  // at float32's bound says nothing of the code's precision, and a float32
  // hint beside the name would contradict it. Only low_precision agrees.
  for (const std::string& key : misconception_keys(out))
    if (key != "low_precision") return out;
  const attn::prop::Precision narrower = attn::prop::Precision::of_float();
  if (attn::prop::holds_at_precision(*property, subject_, *v.counterexample, narrower) &&
      !(stopped_ && stopped_()))
    out.within_precision = attn::ref::format_info(narrower.storage).name;
  return out;
}

void DiagnosisStage::add_failure(const attn::prop::Verdict& v) {
  if (v.counts_as_failed() && v.failure && v.counterexample) add_case(*v.counterexample);
}

void DiagnosisStage::add_case(const attn::prop::Case& c) {
  const std::string key = case_key(c);
  for (const attn::prop::Case& f : failed_)
    if (case_key(f) == key) return;
  failed_.push_back(c);
}

FailureDiagnosis DiagnosisStage::diagnose_engine(const attn::prop::Verdict& v) {
  FailureDiagnosis out;
  if (!v.counts_as_failed()) {
    out.why_not = "the property did not fail";
    return out;
  }
  if (!v.failure || !v.counterexample) {
    out.why_not = "no counterexample to start from";
    return out;
  }
  if (stopped_) {
    if (auto why = stopped_()) {
      out.status = FailureDiagnosis::Status::not_run;
      out.why_not = *why;
      return out;
    }
  }
  const attn::prop::Case& c = *v.counterexample;
  if (!attn::prop::operation_spec(c.op).diagnosed) {
    // misconceptions/ models no mistake of it: a plain verdict, no name.
    out.status = FailureDiagnosis::Status::not_applicable;
    out.why_not = std::string("the diagnosis models no misconception of ") +
                  attn::prop::operation_name(c.op);
    return out;
  }
  const std::string key = case_key(c);
  if (auto it = cache_.find(key); it != cache_.end()) {
    out = it->second;
    if (out.status == FailureDiagnosis::Status::diagnosed) {
      out.cached = true;
      out.cached_from = out.engine.failed_property;
      out.engine.failed_property = v.property_id;
    }
    return out;
  }
  try {
    attn::mis::Options options;
    options.language = language_;
    options.fully_forbidden = fully_forbidden_;
    std::set<std::string> seen = {key};
    for (const attn::prop::Case& f : failed_)
      if (f.op == c.op && seen.insert(case_key(f)).second) options.other_failures.push_back(f);
    add_case(c);
    out.engine = attn::mis::diagnose(subject_, c, v.property_id, options);
    out.status = FailureDiagnosis::Status::diagnosed;
    ++runs_;
    cases_ += out.engine.cases_sent;
    seconds_ += out.engine.seconds;
  } catch (const std::exception& e) {
    out.status = FailureDiagnosis::Status::not_applicable;
    out.why_not = std::string("the diagnosis does not apply here (") + e.what() + ")";
    return out;
  }
  // Cut short by the budget or a cap: its answers include cases that never
  // ran, so it says nothing (and is not cached: nothing more will run).
  if (stopped_) {
    if (auto why = stopped_()) {
      FailureDiagnosis cut;
      cut.status = FailureDiagnosis::Status::not_run;
      cut.why_not = *why;
      return cut;
    }
  }
  cache_[key] = out;
  return out;
}

}  // namespace attn::grader
