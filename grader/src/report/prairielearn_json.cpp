// PrairieLearn's external-grader results.json (see prairielearn_json.hpp).
#include "report/prairielearn_json.hpp"

#include <stdexcept>

#include "report/results_json.hpp"
#include "report/scoring.hpp"
#include "sandbox/atomic_file.hpp"

namespace attn::grader {
namespace {

/// PrairieLearn publishes nothing later: what is not shown is hidden for good.
std::string hidden_note(std::size_t n) {
  return " (" + std::to_string(n) +
         " test(s) hidden from students by the course's visibility settings; their points are in "
         "the score)";
}

}  // namespace

nlohmann::ordered_json prairielearn_json(const GradeResult& r) {
  nlohmann::ordered_json j;
  const nlohmann::ordered_json gs = results_json(r);  // its "output" is the summary
  const std::string summary = gs.value("output", "");
  if (r.status == GradeResult::Status::not_gradable) {
    j["gradable"] = false;
    j["format_errors"] = nlohmann::ordered_json::array(
        {"the submission " + r.not_gradable_headline + "; fix it and submit again"});
    j["message"] = "Not gradable: the submission " + r.not_gradable_headline + ".";
    j["output"] = summary;
    j["tests"] = nlohmann::ordered_json::array();
    return j;
  }
  const bool graded = r.status == GradeResult::Status::graded;
  if (!graded) {
    // Not graded at all (nothing uploaded, a usage or infrastructure error):
    // PrairieLearn's gradable false, so the attempt is not scored 0, with the
    // reason among its format errors.
    j["gradable"] = false;
    j["format_errors"] = nlohmann::ordered_json::array({"attnlab could not grade this submission: " + r.message});
    j["message"] = "Not graded: " + r.message;
    j["output"] = summary;
    j["tests"] = nlohmann::ordered_json::array();
    return j;
  }
  j["gradable"] = true;
  j["score"] = r.max_score > 0 ? r.score / r.max_score : 0.0;
  j["message"] = "Score: " + format_points(r.score) + " / " + format_points(r.max_score);
  j["output"] = summary;
  nlohmann::ordered_json tests = nlohmann::ordered_json::array();
  for (const auto& it : r.items) {
    if (!it.counted || it.visibility != "visible") continue;
    const auto colon = it.name.find(": ");
    tests.push_back(nlohmann::ordered_json{
        {"name", it.id},
        {"description", colon == std::string::npos ? it.name : it.name.substr(colon + 2)},
        {"points", it.points},
        {"max_points", it.max_points},
        {"message", it.status == "passed" ? std::string("passed") : it.summary},
        {"output", it.text}});
  }
  std::size_t not_shown = 0;
  for (const auto& it : r.items) not_shown += it.counted && it.visibility != "visible";
  if (not_shown > 0) j["message"] = j["message"].get<std::string>() + hidden_note(not_shown);
  j["tests"] = std::move(tests);
  return j;
}

nlohmann::ordered_json prairielearn_json(const std::vector<UploadPart>& parts) {
  if (parts.size() == 1 && parts.front().result) return prairielearn_json(*parts.front().result);
  const nlohmann::ordered_json gs = results_json(parts, 0);
  double score = 0, max_score = 0;
  bool any_graded = false;
  nlohmann::ordered_json format_errors = nlohmann::ordered_json::array();
  nlohmann::ordered_json tests = nlohmann::ordered_json::array();
  std::size_t hidden = 0;
  for (const auto& p : parts) {
    max_score += p.max_score;
    const GradeResult* r = p.result ? &*p.result : nullptr;
    if (r && r->status == GradeResult::Status::graded) {
      any_graded = true;
      score += r->score;
      const nlohmann::ordered_json one = prairielearn_json(*r);
      for (auto t : one["tests"]) {
        t["name"] = p.exercise + " " + t["name"].get<std::string>();
        tests.push_back(std::move(t));
      }
      for (const auto& it : r->items) hidden += it.counted && it.visibility != "visible";
      continue;
    }
    std::string message = "no submission: " + p.why_none;
    if (r && r->status == GradeResult::Status::not_gradable) {
      message = "not gradable: the submission " + r->not_gradable_headline + "; fix it and submit again";
      format_errors.push_back(p.exercise + ": the submission " + r->not_gradable_headline);
    } else if (r) {
      message = "attnlab could not grade it: " + r->message;
    }
    tests.push_back(nlohmann::ordered_json{{"name", p.exercise},
                                           {"description", message},
                                           {"points", 0.0},
                                           {"max_points", p.max_score},
                                           {"message", message},
                                           {"output", r ? results_json(*r).value("output", "") : message}});
  }
  nlohmann::ordered_json j;
  if (!any_graded && !format_errors.empty()) {
    j["gradable"] = false;
    j["format_errors"] = std::move(format_errors);
    j["message"] = "Not gradable: " + j["format_errors"][0].get<std::string>() + ".";
    j["output"] = gs.value("output", "");
    j["tests"] = nlohmann::ordered_json::array();
    return j;
  }
  j["gradable"] = true;
  j["score"] = max_score > 0 ? score / max_score : 0.0;
  std::string message = "Score: " + format_points(score) + " / " + format_points(max_score) + " (";
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const auto& p = parts[k];
    const bool graded = p.result && p.result->status == GradeResult::Status::graded;
    message += (k ? ", " : "") + p.exercise + " " +
               (graded ? format_points(p.result->score) : std::string(p.result ? "0" : "no submission, 0")) +
               " / " + format_points(p.max_score);
  }
  message += ")";
  if (hidden > 0) message += hidden_note(hidden);
  j["message"] = message;
  j["output"] = gs.value("output", "");
  j["tests"] = std::move(tests);
  return j;
}

void write_prairielearn_json(const std::filesystem::path& file, const GradeResult& r) {
  write_file_creating_folder(file, dump_json(prairielearn_json(r)));
}

}  // namespace attn::grader
