// JUnit XML: a GradeResult as a JunitSuite, written by the project's one
// JUnit writer (attn/prop/junit.hpp).
#include "report/junit_report.hpp"

#include <attn/prop/junit.hpp>

#include "diagnosis/diagnosis_text.hpp"
#include "report/scoring.hpp"
#include "sandbox/atomic_file.hpp"
#include "attn/prop/catalog.hpp"

namespace attn::grader {
namespace {

using attn::prop::JunitSuite;
using attn::prop::JunitTestcase;

std::string classname(const GradeResult& r) {
  std::string name = r.header.submission.empty() ? std::string("submission") : r.header.submission;
  for (char& c : name)
    if (c == '/' || c == '.' || c == ' ') c = '_';
  const std::string ex = r.header.exercise.empty() ? r.exercise : r.header.exercise;
  return "attnlab." + (ex.empty() ? std::string("unknown") : ex) + "." + name;
}

JunitSuite suite_of(const GradeResult& r) {
  const ReportHeader& h = r.header;
  JunitSuite suite;
  const std::string exercise = h.exercise.empty() ? r.exercise : h.exercise;
  suite.name = (h.submission.empty() ? std::string("submission") : h.submission) +
               (exercise.empty() ? "" : " (" + exercise + ")");
  suite.properties = {{"exercise", exercise},
                      {"language", h.language},
                      {"seed", std::to_string(h.seed)},
                      {"cases", std::to_string(h.cases)},
                      {"score", format_points(r.score)},
                      {"max_score", format_points(r.max_score)}};
  if (!h.mode.empty()) suite.properties.emplace_back("mode", h.mode);
  if (!h.sandbox.empty()) suite.properties.emplace_back("sandbox", h.sandbox);
  if (!h.precision.empty()) suite.properties.emplace_back("precision", h.precision);

  if (r.status == GradeResult::Status::graded) {
    for (const auto& it : r.items) {
      JunitTestcase tc;
      tc.classname = classname(r);
      tc.name = it.name;
      tc.seconds = it.seconds;
      if (it.status == "skipped") {
        tc.status = JunitTestcase::Status::skipped;
        tc.message = it.summary.empty() ? std::string("not applicable") : it.summary;
        suite.cases.push_back(std::move(tc));
        continue;
      }
      if (it.status != "passed") {
        tc.status = it.status == "error" ? JunitTestcase::Status::error : JunitTestcase::Status::failure;
        std::string message = it.summary;
        if (it.diagnosis) {
          const std::string d = diagnosis_summary(*it.diagnosis);
          if (!d.empty()) message += (message.empty() ? "" : "; ") + std::string("diagnosis: ") + d;
        }
        if (it.hint)
          message += (message.empty() ? "" : "; ") + std::string("hint: ") + it.hint->headline;
        tc.message = message;
        tc.type = it.id;
        tc.text = it.text;
      }
      tc.system_out = "points: " + format_points(it.points) + " / " + format_points(it.max_points);
      suite.cases.push_back(std::move(tc));
    }
  } else {
    JunitTestcase tc;
    tc.classname = classname(r);
    const bool not_gradable = r.status == GradeResult::Status::not_gradable;
    tc.name = not_gradable ? "submission builds and starts" : "grading";
    tc.status = JunitTestcase::Status::error;
    tc.message = not_gradable ? "not gradable: the submission " + r.not_gradable_headline
                              : "attnlab could not grade this submission: " +
                                    r.message.substr(0, r.message.find('\n'));
    tc.type = not_gradable ? "not_gradable" : "grader_error";
    tc.text = not_gradable ? (r.command.empty() ? "" : "command: " + r.command + "\n") + r.details
                           : r.message;
    suite.cases.push_back(std::move(tc));
  }
  if (!r.refused.empty()) suite.system_out = "attnlab: note: " + r.refused + "\n";
  suite.system_err = r.stderr_tail;
  suite.seconds = r.seconds > 0 ? r.seconds : -1;
  return suite;
}

}  // namespace

std::string xml_safe(const std::string& text) { return attn::prop::xml_safe(text); }

std::string junit_xml(const std::vector<const GradeResult*>& results) {
  std::vector<JunitSuite> suites;
  for (const GradeResult* r : results) suites.push_back(suite_of(*r));
  return attn::prop::junit_xml(suites);
}

void write_junit(const std::filesystem::path& file, const GradeResult& r) {
  write_file_creating_folder(file, junit_xml({&r}));
}

void merge_junit_files(const std::vector<std::filesystem::path>& parts,
                       const std::filesystem::path& file) {
  write_file_creating_folder(file, attn::prop::merged_junit_xml(parts));
}

}  // namespace attn::grader
