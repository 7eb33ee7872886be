// check's statuses, exit status and --results-json (check_results.hpp).
#include "commands/check_results.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "attn/prop/case_shape.hpp"
#include "attn/prop/verdict.hpp"
#include "diagnosis/diagnosis_stage.hpp"
#include "report/results_json.hpp"

namespace attn::grader {

using nlohmann::json;

std::string check_status(const GradeResult& r, std::size_t k) {
  const attn::prop::Verdict& v = r.verdicts[k];
  if (v.skipped()) return "skipped";
  if (v.passed()) return "passed";
  // A stop of the whole run's budget; a stop of the subject's own (its
  // restarts, its timeouts) is its failure.
  if (v.status == attn::prop::VerdictStatus::not_run && !r.budget_stop.empty() &&
      v.stop_reason == r.budget_stop)
    return "not_run";
  return r.items[k].status == "error" ? "error" : "failed";
}

std::vector<std::string> not_run_properties(const GradeResult& r) {
  std::vector<std::string> ids;
  for (std::size_t k = 0; k < r.verdicts.size() && k < r.items.size(); ++k)
    if (check_status(r, k) == "not_run") ids.push_back(r.verdicts[k].property_id);
  return ids;
}

int check_exit_code(const GradeResult& r) {
  if (r.status != GradeResult::Status::graded) return r.exit_code();
  bool not_run = false;
  for (std::size_t k = 0; k < r.verdicts.size() && k < r.items.size(); ++k) {
    const std::string s = check_status(r, k);
    if (s == "failed" || s == "error") return kCheckFailed;
    not_run = not_run || s == "not_run";
  }
  return not_run ? kCheckOutOfTime : kCheckPassed;
}

namespace {

/// A number as JSON; NaN and the infinities (not JSON numbers) as the
/// strings "nan", "inf", "-inf".
json number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

/// The worst entry and its error/bound ratio (null without a bound).
void add_worst(json& p, const attn::prop::Verdict& v) {
  p["worst"] = nullptr;
  p["ratio"] = nullptr;
  if (!v.failure || !v.failure->worst) return;
  const attn::prop::WorstEntry& w = *v.failure->worst;
  p["worst"] = {{"matrix", w.matrix},          {"row", w.row},
                {"col", w.col},                {"expected", number(w.expected)},
                {"actual", number(w.actual)},  {"error", number(w.error)},
                {"bound", number(w.bound)}};
  if (w.bound > 0) p["ratio"] = number(w.error / w.bound);
}

json diagnosis_json(const ScoredItem& item) {
  if (!item.diagnosis) return nullptr;
  return {{"status", diagnosis_status_name(*item.diagnosis)},
          {"misconceptions", misconception_keys(*item.diagnosis)},
          {"withdrawn", json(withdrawn_json(*item.diagnosis))}};
}

json property_json(const GradeResult& r, std::size_t k) {
  const attn::prop::Verdict& v = r.verdicts[k];
  const ScoredItem& item = r.items[k];
  json p = {{"name", v.property_id}, {"title", v.title},     {"source", v.source},
            {"status", check_status(r, k)}, {"summary", item.summary},
            {"cases", v.cases},     {"seed", v.seed},       {"seconds", item.seconds}};
  p["counterexample"] = nullptr;
  if (v.counterexample && v.failure)
    p["counterexample"] = {{"shape", attn::prop::shape_line(*v.counterexample)},
                           {"generated", v.generated},
                           {"summary", v.failure->summary}};
  add_worst(p, v);
  p["diagnosis"] = diagnosis_json(item);
  p["text"] = item.text;
  return p;
}

std::string status_name(const GradeResult& r) {
  switch (r.status) {
    case GradeResult::Status::graded: break;
    case GradeResult::Status::not_gradable: return "not_gradable";
    case GradeResult::Status::usage_error: return "usage_error";
    case GradeResult::Status::infrastructure_error: return "infrastructure_error";
  }
  switch (check_exit_code(r)) {
    case kCheckPassed: return "passed";
    case kCheckOutOfTime: return "not_run";
    default: return "failed";
  }
}

/// Why the kernel was not checked: the message, or the not-gradable
/// headline and details; empty when it was.
std::string why_not_checked(const GradeResult& r) {
  if (r.status == GradeResult::Status::not_gradable)
    return "the kernel " + r.not_gradable_headline + ": " + r.details;
  return r.status == GradeResult::Status::graded ? std::string() : r.message;
}

}  // namespace

std::string check_results_json(const GradeResult& r, const CheckRunInfo& info) {
  json j = {{"format", "attnlab-check-results/1"},
            {"kernel", info.kernel},
            {"operation", info.operation},
            {"entry", r.header.entry},
            {"precision", info.precision},
            {"fully_forbidden", info.fully_forbidden},
            {"seed", info.seed},
            {"cases", info.cases},
            {"status", status_name(r)},
            {"exit_status", check_exit_code(r)},
            {"message", why_not_checked(r)},
            {"seconds", r.seconds},
            {"not_run", not_run_properties(r)}};
  j["time_budget_seconds"] = info.time_budget_s ? json(*info.time_budget_s) : json(nullptr);
  j["margin"] = nullptr;
  if (info.margin.entries > 0)
    j["margin"] = {{"ratio", number(info.margin.max_ratio)},
                   {"where", info.margin.where},
                   {"entries", info.margin.entries}};
  json props = json::array();
  for (std::size_t k = 0; k < r.verdicts.size() && k < r.items.size(); ++k)
    props.push_back(property_json(r, k));
  j["properties"] = std::move(props);
  // Text from the kernel (messages, answers) may hold invalid UTF-8: replaced, not thrown.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace attn::grader
