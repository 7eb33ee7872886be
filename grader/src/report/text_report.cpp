// The text report: header, verdicts with hints and points, summary with the score.
#include "report/text_report.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <sstream>

#include "diagnosis/diagnosis_text.hpp"
#include "exercises/exercise.hpp"
#include "report/reproduction.hpp"
#include "protocol/untrusted_text.hpp"
#include "sandbox/exit_status.hpp"

namespace attn::grader {
namespace {

void print_item(std::ostream& os, const ScoredItem& item) {
  os << item.text;
  if (item.counted) {
    os << "  points: " << format_points(item.points) << " / " << format_points(item.max_points)
       << "\n";
  } else {
    os << "  points: not counted (skipped)\n";
  }
}

/// How many numbers a counterexample's code may hold before it is too long
/// to paste (a long-rows case has up to 2^18): beyond it, the seed replays it.
constexpr attn::Index kPastedNumbersAtMost = 4096;

attn::Index numbers_in(const attn::prop::Case& c) {
  attn::Index n = c.Q.size() + c.K.size() + c.V.size() + c.S.size() + c.X.size() + c.W_O.size();
  for (const auto& h : c.heads) n += h.W_Q.size() + h.W_K.size() + h.W_V.size();
  return n;
}

/// The counterexample as code to paste, in the submission's language.
std::string paste_block(const GradeResult& r, const attn::prop::Case& c) {
  if (numbers_in(c) > kPastedNumbersAtMost)
    return "  reproduce it: the case holds " + std::to_string(numbers_in(c)) +
           " numbers, too many to paste; the seed above replays it (its matrices are shown in "
           "excerpt)\n";
  const bool cpp = r.header.language == "C++";
  std::string name = r.header.submission;
  if (const auto slash = name.find_last_of('/'); slash != std::string::npos) name = name.substr(slash + 1);
  // A file graded as each of its exercises is shown "attention.py (F2)" in a
  // class (class_folder.hpp); the code to paste opens the file itself.
  if (const std::string suffix = " (" + r.exercise + ")";
      !r.exercise.empty() && name.size() > suffix.size() && name.ends_with(suffix))
    name.erase(name.size() - suffix.size());
  const std::string code =
      cpp ? cpp_reproduction(c, r.exercise) : python_reproduction(c, name, r.header.entry);
  std::string out;
  if (!cpp)
    out = "  reproduce it (paste into Python beside your file):\n";
  else if (r.cpp_reproduction_build.empty())
    out = "  reproduce it (C++, Eigen; compile with your file, -I the exercise's folder and -I "
          "Eigen's include folder):\n";
  else
    out = "  reproduce it (C++, Eigen; save as repro.cpp beside your file, build and run it with the "
          "line under the code):\n";
  std::istringstream lines(code);
  std::string line;
  while (std::getline(lines, line)) out += "    " + line + "\n";
  if (cpp && !r.cpp_reproduction_build.empty()) out += "  $ " + r.cpp_reproduction_build + "\n";
  return out;
}

/// `text` (a failing verdict) with its input matrices replaced by `paste`,
/// placed right under the "counterexample ..." line; `text` + `paste` if
/// that line is not there.
std::string inputs_as_code(const std::string& text, const std::string& paste) {
  std::istringstream in(text);
  std::string line, out;
  bool found = false, skipping = false;
  while (std::getline(in, line)) {
    if (skipping) {
      const bool matrix_row = line.rfind("    ", 0) == 0;
      const bool input_header = line.size() > 2 && line.rfind("  ", 0) == 0 &&
                                (std::isupper(static_cast<unsigned char>(line[2])) ||
                                 line.rfind("  mask", 0) == 0 || line.rfind("  params", 0) == 0);
      if (matrix_row || input_header) continue;
      skipping = false;
    }
    out += line + "\n";
    if (!found && (line.rfind("  counterexample after", 0) == 0 ||
                   line.rfind("  on the text's example", 0) == 0)) {
      found = true;
      skipping = true;
      out += paste;
    }
  }
  return found ? out : text + paste;
}

}  // namespace

void print_header(std::ostream& os, const ReportHeader& h) {
  os << "attnlab grade: exercise " << h.exercise;
  if (!h.title.empty()) os << ": " << h.title;
  os << "\n";
  os << "  submission:  " << h.submission << "\n";
  if (!h.recognised.empty()) os << "  recognised:  " << h.exercise << " (" << h.recognised << ")\n";
  os << "  language:    " << h.language << "\n";
  if (!h.runtime.empty() && !h.brief) {
    std::string label = h.runtime_label + ":";
    label.resize(std::max<std::size_t>(label.size(), 12), ' ');
    os << "  " << label << " " << h.runtime << "\n";
  }
  if (!h.entry.empty() && !h.brief) os << "  entry:       " << h.entry << "\n";
  if (!h.precision.empty()) os << "  precision:   " << h.precision << "\n";
  if (!h.mode.empty()) os << "  mode:        " << h.mode << "\n";
  os << "  seed:        " << h.seed << "  (replay: --seed " << h.seed << ")";
  if (!h.settings_from.empty()) os << "  from " << h.settings_from;
  os << "\n";
  os << "  cases:       " << h.cases << " per property\n";
  for (const auto& note : h.notes) os << "  note:        " << note << "\n";
  if (h.brief) {
    // A sandbox that is off is a warning, never hidden.
    if (h.sandbox.rfind("OFF", 0) == 0) os << "  sandbox:     " << h.sandbox << "\n";
    os << "  (more with --verbose: runtime, limits, sandbox)\n\n";
    return;
  }
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

/// The earlier failed property whose diagnosis named the same mistakes as
/// `d` (misconception, several or combined, same keys and parameters), if any.
std::string same_diagnosis_as(const GradeResult& r, const FailureDiagnosis& d) {
  if (misconception_keys(d).empty()) return "";
  for (const auto& it : r.items)
    if (it.diagnosis && it.diagnosis->same_as_property.empty() &&
        it.diagnosis->status == FailureDiagnosis::Status::diagnosed &&
        it.diagnosis->engine.verdict == d.engine.verdict &&
        diagnosis_summary(*it.diagnosis) == diagnosis_summary(d))
      return it.id;
  return "";
}

void record_verdict(std::ostream& os, GradeResult& r, attn::prop::Verdict v,
                    const ScoringRules& rules, double seconds, const FailureDiagnosis* diagnosis) {
  // One cause, one explanation: a diagnosis naming what an earlier one named
  // points to it instead of repeating the explanation.
  std::optional<FailureDiagnosis> pointing;
  if (diagnosis) {
    pointing = *diagnosis;
    pointing->same_as_property = same_diagnosis_as(r, *diagnosis);
    diagnosis = &*pointing;
  }
  ScoredItem item = score_verdict(v, rules, diagnosis);
  item.seconds = seconds;
  if (v.counts_as_failed() && v.failure && v.counterexample) {
    const std::string paste = paste_block(r, *v.counterexample);
    // On screen (the short header), the inputs are shown once, as the code to paste.
    ScoredItem shown = item;
    const bool pasted = numbers_in(*v.counterexample) <= kPastedNumbersAtMost;
    shown.text = r.header.brief && pasted ? inputs_as_code(item.text, paste) : item.text + paste;
    item.text += paste;
    print_item(os, shown);
  } else {
    print_item(os, item);
  }
  os.flush();
  if (v.skipped()) {
    // not applicable, or not given: neither passed nor failed, not counted
  } else if (v.passed()) {
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

void print_summary(std::ostream& os, const GradeResult& r, const std::string& stderr_tail) {
  os << "\n" << r.passed << " passed, " << r.failed << " failed";
  int not_run = 0;
  for (const auto& v : r.verdicts) not_run += v.status == attn::prop::VerdictStatus::not_run;
  if (not_run) os << " (" << not_run << " of them not run)";
  int skipped = 0;
  for (const auto& it : r.items) skipped += !it.counted;
  if (skipped) os << ", " << skipped << " skipped (not counted)";
  os << "\nscore: " << format_points(r.score) << " / " << format_points(r.max_score)
     << " points\n";
  if (!r.missing.empty()) os << "missing (counted 0): " << r.missing << "\n";
  bool any = false;
  for (const auto& it : r.items) {
    if (!it.counted || it.status == "passed") continue;
    if (!any) os << "failed (fix these first, the reproduction of each is above):\n";
    any = true;
    os << "  - " << it.id << ": " << format_points(it.points) << " / "
       << format_points(it.max_points) << " points";
    if (it.hint) os << "  (" << it.hint->headline << ")";
    os << "\n";
  }
  if (r.failed > 0 && !stderr_tail.empty()) {
    os << "\nThe submission's stderr (its prints go there; last "
       << stderr_tail.size() << " bytes):\n" << fenced(stderr_tail);
    if (stderr_tail.back() != '\n') os << "\n";
  }
}

}  // namespace attn::grader
