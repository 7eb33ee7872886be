// PrairieLearn's external-grader results.json (see prairielearn_json.hpp).
#include "report/prairielearn_json.hpp"

#include <stdexcept>

#include "report/results_json.hpp"
#include "report/scoring.hpp"
#include "sandbox/atomic_file.hpp"

namespace attn::grader {

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
  j["gradable"] = true;
  j["score"] = graded && r.max_score > 0 ? r.score / r.max_score : 0.0;
  j["message"] = graded ? "Score: " + format_points(r.score) + " / " + format_points(r.max_score)
                        : "attnlab could not grade this submission: " + r.message;
  j["output"] = summary;
  nlohmann::ordered_json tests = nlohmann::ordered_json::array();
  for (const auto& it : r.items) {
    if (!graded || !it.counted || it.visibility != "visible") continue;
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
  for (const auto& it : r.items) not_shown += graded && it.counted && it.visibility != "visible";
  if (not_shown > 0)
    j["message"] = j["message"].get<std::string>() + " (" + std::to_string(not_shown) +
                   " test(s) hidden from students by the course's visibility settings; their "
                   "points are in the score)";
  j["tests"] = std::move(tests);
  return j;
}

void write_prairielearn_json(const std::filesystem::path& file, const GradeResult& r) {
  write_file_creating_folder(file, dump_json(prairielearn_json(r)));
}

}  // namespace attn::grader
