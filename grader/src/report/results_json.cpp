// Gradescope's results.json.
#include "report/results_json.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "diagnosis/diagnosis_text.hpp"
#include "report/scoring.hpp"
#include "sandbox/atomic_file.hpp"

namespace attn::grader {
namespace {

bool generated_tests_visible(const GradeResult& r) {
  bool any_generated = false;
  for (std::size_t k = 0; k < r.items.size() && k < r.verdicts.size(); ++k) {
    if (!r.verdicts[k].generated) continue;
    any_generated = true;
    if (r.items[k].visibility != "visible") return false;
  }
  return any_generated;
}

std::string summary_output(const GradeResult& r) {
  const ReportHeader& h = r.header;
  std::ostringstream os;
  const std::string exercise = h.exercise.empty() ? r.exercise : h.exercise;
  os << "attnlab: exercise " << (exercise.empty() ? std::string("not recognised") : exercise);
  if (!h.submission.empty()) os << ", " << h.submission;
  if (!h.language.empty()) os << " (" << h.language << ")";
  os << "\n";
  switch (r.status) {
    case GradeResult::Status::graded: {
      int skipped = 0;
      for (const auto& it : r.items) skipped += !it.counted;
      os << "Score: " << format_points(r.score) << " / " << format_points(r.max_score) << " ("
         << r.passed << " passed, " << r.failed << " failed";
      if (skipped) os << ", " << skipped << " skipped";
      os << ")\n";
      if (!r.missing.empty()) os << "Missing (counted 0): " << r.missing << "\n";
      for (const auto& it : r.items)
        if (!it.counted) os << "Skipped (not counted): " << it.id << "\n";
      break;
    }
    case GradeResult::Status::not_gradable:
      os << "NOT GRADABLE: the submission " << r.not_gradable_headline
         << ", so no property was checked. This is not a judgement of the code's numbers: "
            "fix the problem below and submit again.\n\n"
         << r.details;
      if (!r.details.empty() && r.details.back() != '\n') os << "\n";
      break;
    case GradeResult::Status::usage_error:
    case GradeResult::Status::infrastructure_error:
      os << "attnlab could not grade this submission: " << r.message << "\n";
      break;
  }
  if (!r.refused.empty()) os << "Not read: " << r.refused << "\n";
  if (!h.mode.empty()) os << "Mode: " << h.mode << "\n";
  if (r.status == GradeResult::Status::graded && !h.precision.empty())
    os << "Precision: " << h.precision << "\n";
  if (r.status == GradeResult::Status::graded && generated_tests_visible(r))
    os << "Seed " << h.seed << ", " << h.cases << " cases per property (replay: --seed "
       << h.seed << " --cases " << h.cases << ")\n";
  if (!h.sandbox.empty()) os << "Sandbox: " << h.sandbox << "\n";
  return os.str();
}

/// The top-level visibility: the least visible of the counted tests (a
/// score made of hidden tests would give them away); "hidden" tests count
/// as "after_published" (the total is shown once the grades are). Visible
/// when there are no tests (a submission that is not gradable says why).
std::string top_visibility(const GradeResult& r) {
  static const char* order[] = {"visible", "after_due_date", "after_published"};
  int worst = 0;
  for (const auto& it : r.items) {
    if (!it.counted) continue;
    const std::string v = it.visibility == "hidden" ? "after_published" : it.visibility;
    for (int k = 0; k < 3; ++k)
      if (v == order[k]) worst = std::max(worst, k);
  }
  return r.status == GradeResult::Status::graded ? order[worst] : "visible";
}

}  // namespace

nlohmann::ordered_json withdrawn_json(const FailureDiagnosis& d) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& [name, property] : d.engine.withdrawn)
    out.push_back({{"name", name}, {"ruled_out_by", property}});
  return out;
}

nlohmann::ordered_json diagnosis_extra_data(const ScoredItem& it) {
  nlohmann::ordered_json extra;
  nlohmann::ordered_json keys = nlohmann::ordered_json::array();
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  std::string status = "not_applicable";
  if (it.diagnosis) {
    for (const auto& k : misconception_keys(*it.diagnosis)) keys.push_back(k);
    for (const auto& [key, named] : fitted_parameters(*it.diagnosis)) {
      nlohmann::ordered_json p = nlohmann::ordered_json::object();
      for (const auto& [name, value] : named) p[name] = value;
      params[key] = std::move(p);
    }
    status = diagnosis_status_name(*it.diagnosis);
  }
  extra["misconceptions"] = std::move(keys);
  extra["parameters"] = std::move(params);
  extra["diagnosis"] = status;
  if (it.diagnosis && it.diagnosis->status == FailureDiagnosis::Status::diagnosed) {
    const auto& e = it.diagnosis->engine;
    extra["diagnosis_text"] = diagnosis_summary(*it.diagnosis);
    extra["diagnosis_cost"] = nlohmann::ordered_json{{"cases_sent", e.cases_sent},
                                                     {"entries_sent", e.entries_sent},
                                                     {"seconds", e.seconds},
                                                     {"reused", it.diagnosis->cached}};
  } else if (it.diagnosis && !it.diagnosis->why_not.empty()) {
    extra["diagnosis_text"] = diagnosis_summary(*it.diagnosis);
  }
  if (it.diagnosis && !it.diagnosis->engine.withdrawn.empty())
    extra["withdrawn"] = withdrawn_json(*it.diagnosis);
  if (it.diagnosis && !it.diagnosis->within_precision.empty())
    extra["within_precision"] = it.diagnosis->within_precision;
  if (it.hint) extra["hint"] = it.hint->key;
  return extra;
}

std::string dump_json(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

nlohmann::ordered_json results_json(const GradeResult& r) {
  nlohmann::ordered_json j;
  j["score"] = r.status == GradeResult::Status::graded ? r.score : 0.0;
  j["max_score"] = r.max_score;
  j["output"] = summary_output(r);
  j["output_format"] = "text";
  j["test_output_format"] = "text";
  j["visibility"] = top_visibility(r);
  j["stdout_visibility"] = "hidden";
  j["execution_time"] = static_cast<int>(r.seconds + 0.5);  // Gradescope: whole seconds
  nlohmann::ordered_json tests = nlohmann::ordered_json::array();
  if (r.status == GradeResult::Status::graded) {
    for (const auto& it : r.items) {
      if (!it.counted) continue;
      nlohmann::ordered_json test{{"name", it.name},
                                  {"score", it.points},
                                  {"max_score", it.max_points},
                                  {"status", it.status == "passed" ? "passed" : "failed"},
                                  {"output", it.text},
                                  {"visibility", it.visibility}};
      if (it.status != "passed") test["extra_data"] = diagnosis_extra_data(it);
      tests.push_back(std::move(test));
    }
  }
  j["tests"] = std::move(tests);
  return j;
}

namespace {

/// "F2: no submission", "F2: not gradable", "F2: not graded": a part's one
/// test worth 0 of its maximum, and its output.
std::pair<std::string, std::string> part_without_tests(const UploadPart& p) {
  if (!p.result) return {p.exercise + ": no submission", "Nothing of " + p.exercise + " was graded: " + p.why_none + ".\n"};
  const GradeResult& r = *p.result;
  const std::string output = results_json(r).value("output", "");
  if (r.status == GradeResult::Status::not_gradable) return {p.exercise + ": not gradable", output};
  return {p.exercise + ": not graded", output};
}

}  // namespace

nlohmann::ordered_json results_json(const std::vector<UploadPart>& parts, double seconds) {
  if (parts.size() == 1 && parts.front().result) {
    nlohmann::ordered_json j = results_json(*parts.front().result);
    j["execution_time"] = static_cast<int>(seconds + 0.5);
    return j;
  }
  static const std::vector<std::string> order = {"visible", "after_due_date", "after_published"};
  double score = 0, max_score = 0;
  std::size_t least = 0;
  std::string output;
  nlohmann::ordered_json tests = nlohmann::ordered_json::array();
  for (const auto& p : parts) {
    max_score += p.max_score;
    if (p.result && p.result->status == GradeResult::Status::graded) {
      const nlohmann::ordered_json one = results_json(*p.result);
      score += p.result->score;
      output += "== " + p.exercise + " ==\n" + one.value("output", "");
      const auto v = std::find(order.begin(), order.end(), one.value("visibility", "visible"));
      least = std::max(least, std::size_t(v == order.end() ? 0 : v - order.begin()));
      for (auto t : one["tests"]) {
        t["name"] = p.exercise + " " + t["name"].get<std::string>();
        tests.push_back(std::move(t));
      }
    } else {
      const auto [name, text] = part_without_tests(p);
      output += "== " + p.exercise + " ==\n" + text;
      tests.push_back(nlohmann::ordered_json{{"name", name},
                                             {"score", 0.0},
                                             {"max_score", p.max_score},
                                             {"status", "failed"},
                                             {"output", text},
                                             {"visibility", "visible"}});
    }
  }
  nlohmann::ordered_json j;
  j["score"] = score;
  j["max_score"] = max_score;
  j["output"] = "attnlab: " + std::to_string(parts.size()) + " exercises, each out of its fixed maximum; score " +
                format_points(score) + " / " + format_points(max_score) + "\n\n" + output;
  j["output_format"] = "text";
  j["test_output_format"] = "text";
  j["visibility"] = order[least];
  j["stdout_visibility"] = "hidden";
  j["execution_time"] = static_cast<int>(seconds + 0.5);  // Gradescope: whole seconds
  j["tests"] = std::move(tests);
  return j;
}

void write_results_json(const std::filesystem::path& file, const GradeResult& r) {
  write_file_creating_folder(file, dump_json(results_json(r)));
}

}  // namespace attn::grader
