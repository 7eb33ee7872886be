// The text report: header, verdicts with hints and points, summary with the score.
#include "attn/grader/text_report.hpp"

#include <algorithm>
#include <sstream>

#include "attn/grader/exercise.hpp"
#include "attn/grader/exit_status.hpp"

namespace attn::grader {
namespace {

std::string mib(std::uint64_t bytes) {
  if (bytes == 0) return "unlimited";
  if (bytes % (std::uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  return std::to_string(bytes >> 20) + " MiB";
}

void print_item(std::ostream& os, const ScoredItem& item) {
  os << item.text;
  if (item.counted) {
    os << "  points: " << format_points(item.points) << " / " << format_points(item.max_points)
       << "\n";
  } else {
    os << "  points: not counted (skipped)\n";
  }
}

}  // namespace

void print_header(std::ostream& os, const ReportHeader& h) {
  os << "attnlab grade: exercise " << h.exercise;
  if (!h.title.empty()) os << ": " << h.title;
  os << "\n";
  os << "  submission:  " << h.submission << "\n";
  if (!h.recognised.empty()) os << "  recognised:  " << h.exercise << " (" << h.recognised << ")\n";
  os << "  language:    " << h.language << "\n";
  if (!h.runtime.empty()) {
    std::string label = h.runtime_label + ":";
    label.resize(std::max<std::size_t>(label.size(), 12), ' ');
    os << "  " << label << " " << h.runtime << "\n";
  }
  if (!h.entry.empty()) os << "  entry:       " << h.entry << "\n";
  if (!h.mode.empty()) os << "  mode:        " << h.mode << "\n";
  os << "  seed:        " << h.seed << "  (replay: --seed " << h.seed << ")";
  if (!h.settings_from.empty()) os << "  from " << h.settings_from;
  os << "\n";
  os << "  cases:       " << h.cases << " per property\n";
  if (!h.timeout.empty()) os << "  timeout:     " << h.timeout << " per case\n";
  if (!h.limits.empty()) os << "  limits:      " << h.limits << "\n";
  if (!h.processes.empty()) os << "  processes:   " << h.processes << "\n";
  if (!h.sandbox.empty()) os << "  sandbox:     " << h.sandbox << "\n";
  os << "\n";
}

void print_not_gradable(std::ostream& os, const std::string& headline,
                        const std::string& details, const std::string& command) {
  os << "NOT GRADABLE: the submission " << headline << ", so no property was checked.\n"
        "This is not a score of 0: fix the problem below and grade again.\n\n";
  if (!command.empty()) os << "command: " << command << "\n";
  os << details;
  if (!details.empty() && details.back() != '\n') os << "\n";
}

void report_not_gradable(std::ostream& os, GradeResult& r, const std::string& headline,
                         const std::string& details, const std::string& command) {
  r.not_gradable_headline = headline;
  r.details = details;
  r.command = command;
  print_not_gradable(os, headline, details, command);
}

void record_verdict(std::ostream& os, GradeResult& r, attn::prop::Verdict v,
                    const ScoringRules& rules, double seconds) {
  ScoredItem item = score_verdict(v, rules);
  item.seconds = seconds;
  print_item(os, item);
  os.flush();
  if (v.skipped) {
    // not applicable, or not given: neither passed nor failed, not counted
  } else if (v.passed) {
    ++r.passed;
  } else {
    ++r.failed;
  }
  if (item.counted) {
    r.score += item.points;
    r.max_score += item.max_points;
  }
  r.verdicts.push_back(std::move(v));
  r.items.push_back(std::move(item));
}

void complete_scoring(GradeResult& r, const GradeOptions& options) {
  if (r.header.submission.empty())
    r.header.submission = options.display_name.empty() ? options.file.string() : options.display_name;
  if (r.header.exercise.empty()) r.header.exercise = r.exercise;
  if (r.header.mode.empty()) r.header.mode = options.mode;
  if (r.header.sandbox.empty() && options.sandbox) r.header.sandbox = options.sandbox->status();
  const bool unscored = r.items.size() < r.verdicts.size();
  const bool needs_max = r.status != GradeResult::Status::graded && r.max_score == 0;
  if ((!unscored && !needs_max) || r.exercise.empty()) return;
  Exercise exercise;
  try {
    exercise = load_exercise(r.exercise);
  } catch (const std::exception&) {
    return;
  }
  const ScoringRules rules = scoring_rules(exercise, options.config.get(), options.generated_visibility);
  for (std::size_t k = r.items.size(); k < r.verdicts.size(); ++k) {
    ScoredItem item = score_verdict(r.verdicts[k], rules);
    if (item.counted) {
      r.score += item.points;
      r.max_score += item.max_points;
    }
    r.items.push_back(std::move(item));
  }
  if (needs_max) {
    double max = 0;
    for (const auto& p : exercise.properties) max += rules.points_for(p.id);
    if (exercise.has_answers) max += rules.points_for(kAnswersItem);
    r.max_score = max;
  }
}

std::string describe_limits(const GradeOptions& options) {
  std::ostringstream os;
  os << (options.submission_timeout.count() > 0 ? describe_duration(options.submission_timeout)
                                                : std::string("no limit"))
     << " per submission, memory " << mib(options.launch.limits.address_space_bytes)
     << ", files " << mib(options.launch.limits.file_size_bytes)
     << ", no core dumps; the process group is killed at the end";
  return os.str();
}

void print_summary(std::ostream& os, const GradeResult& r, const std::string& stderr_tail) {
  os << "\n" << r.passed << " passed, " << r.failed << " failed";
  int not_run = 0;
  for (const auto& v : r.verdicts) not_run += !v.not_run.empty() && !v.failure && !v.passed && !v.skipped;
  if (not_run) os << " (" << not_run << " of them not run)";
  int skipped = 0;
  for (const auto& it : r.items) skipped += !it.counted;
  if (skipped) os << ", " << skipped << " skipped (not counted)";
  os << "\nscore: " << format_points(r.score) << " / " << format_points(r.max_score)
     << " points\n";
  if (r.failed > 0 && !stderr_tail.empty()) {
    os << "\nThe submission's stderr (its prints go there; last "
       << stderr_tail.size() << " bytes):\n" << stderr_tail;
    if (stderr_tail.back() != '\n') os << "\n";
  }
}

}  // namespace attn::grader
