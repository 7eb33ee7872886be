// The text report: header, verdicts, summary.
#include "attn/grader/text_report.hpp"

#include <algorithm>

namespace attn::grader {

void print_header(std::ostream& os, const ReportHeader& h) {
  os << "attnlab grade: exercise " << h.exercise << " (scaled dot-product attention)\n";
  os << "  submission:  " << h.submission << "\n";
  os << "  language:    " << h.language << "\n";
  if (!h.runtime.empty()) {
    std::string label = h.runtime_label + ":";
    label.resize(std::max<std::size_t>(label.size(), 12), ' ');
    os << "  " << label << " " << h.runtime << "\n";
  }
  if (!h.entry.empty()) os << "  entry:       " << h.entry << "\n";
  os << "  seed:        " << h.seed << "  (replay: --seed " << h.seed << ")\n";
  os << "  cases:       " << h.cases << " per property\n";
  if (!h.timeout.empty()) os << "  timeout:     " << h.timeout << " per case\n";
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

void print_summary(std::ostream& os, const GradeResult& r, const std::string& stderr_tail) {
  os << "\n" << r.passed << " passed, " << r.failed << " failed\n";
  if (r.failed > 0 && !stderr_tail.empty()) {
    os << "\nThe submission's stderr (its prints go there; last "
       << stderr_tail.size() << " bytes):\n" << stderr_tail;
    if (stderr_tail.back() != '\n') os << "\n";
  }
}

}  // namespace attn::grader
