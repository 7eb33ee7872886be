// One student's upload graded as a whole (see upload.hpp).
#include "grading/upload.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <sstream>

#include "grading/gradebook.hpp"
#include "report/junit_report.hpp"
#include "report/prairielearn_json.hpp"
#include "report/results_json.hpp"
#include "sandbox/atomic_file.hpp"

namespace attn::grader {
namespace {

using Clock = std::chrono::steady_clock;

/// Of two gradings of one exercise, whether `a` counts before `b`: a graded
/// one before one that is not, then the higher score (the gradebook's rule).
bool counts_before(const GradeResult& a, const GradeResult& b) {
  const bool ga = a.status == GradeResult::Status::graded, gb = b.status == GradeResult::Status::graded;
  if (ga != gb) return ga;
  return a.score > b.score;
}

/// Writes `content` to `file` whole, or says on stderr why it could not.
void write_or_say(const std::optional<std::filesystem::path>& file, const std::string& content) {
  if (!file) return;
  try {
    write_file_creating_folder(*file, content);
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
  }
}

}  // namespace

int grade_upload(const std::vector<BatchInput>& inputs, const GradeOptions& base,
                 const std::string& fixed, const ReportFiles& files, std::ostream& text) {
  const auto started = Clock::now();
  std::string report;  // the text report of every entry
  std::vector<GradeResult> results;
  std::vector<SummaryRow> rows;
  for (const BatchInput& in : inputs) {
    GradeOptions o = base;
    o.file = in.file;
    o.display_name = in.name;
    if (!in.exercise.empty()) o.exercise = in.exercise;
    // --answers names the one entry's answers; with several, each pairs its own.
    if (inputs.size() > 1 || in.answers) o.answers = in.answers;
    o.helpers = in.helpers;
    o.confine_to = in.root;
    o.notes.insert(o.notes.end(), in.notes.begin(), in.notes.end());
    o.refused = in.refused;  // its links and devices: said in results.json too
    o.whole_exercise = true;  // a student's upload: the exercise's full maximum
    std::ostringstream one;
    one << "attnlab: " << in.choice << "\n";
    GradeResult r = grade_and_report(o, one, ReportFiles{});
    text << one.str();
    text.flush();
    report += one.str();
    if (r.status == GradeResult::Status::usage_error || r.status == GradeResult::Status::infrastructure_error) {
      report += "attnlab: " + r.message + "\n";
      std::cerr << "attnlab: " << r.message << "\n";
    }
    rows.push_back(summary_row(in.name, r));
    if (rows.back().exercise.empty()) rows.back().exercise = in.exercise;
    results.push_back(std::move(r));
  }

  // The exercises of the upload's columns, each with the grading that counts.
  std::vector<ExerciseColumns> columns;
  try {
    columns = class_columns(fixed, base.config.get(), rows, base.only_property);
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << e.what() << "\n";
  }
  std::map<std::string, std::size_t> counted;  // exercise -> index in results
  for (std::size_t k = 0; k < results.size(); ++k) {
    const std::string& ex = rows[k].exercise;
    const auto it = counted.find(ex);
    if (it == counted.end() || counts_before(results[k], results[it->second])) counted[ex] = k;
  }
  std::vector<UploadPart> parts;
  int code = 0;
  for (const auto& c : columns) {
    UploadPart p;
    p.exercise = c.exercise;
    p.max_score = c.max_score;
    if (const auto it = counted.find(c.exercise); it != counted.end()) {
      p.result = results[it->second];
      counted.erase(it);
    } else {
      p.why_none = "nothing of " + c.exercise + " was uploaded";
      code = std::max(code, 1);
    }
    parts.push_back(std::move(p));
  }
  // Gradings outside the columns (an exercise the configuration does not grade): as they are.
  for (const auto& [ex, k] : counted) {
    UploadPart p;
    p.exercise = ex.empty() ? inputs[k].name : ex;
    p.max_score = results[k].max_score;
    p.result = results[k];
    parts.push_back(std::move(p));
  }
  for (const auto& r : results) code = std::max(code, r.exit_code());
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();

  write_or_say(files.text, report);
  write_or_say(files.results_json, dump_json(results_json(parts, seconds)));
  write_or_say(files.prairielearn, dump_json(prairielearn_json(parts)));
  std::vector<const GradeResult*> all;
  for (const auto& r : results) all.push_back(&r);
  write_or_say(files.junit, junit_xml(all));
  return code;
}

}  // namespace attn::grader
