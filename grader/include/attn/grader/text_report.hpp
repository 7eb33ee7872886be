#pragma once
// The text report for people: header, per-property verdicts (printed by
// attn::prop::print_verdict), summary.

#include <ostream>
#include <string>

#include "attn/grader/grade.hpp"

namespace attn::grader {

struct ReportHeader {
  std::string submission;
  std::string exercise;
  std::string language;
  std::string runtime_label = "runtime";  ///< "interpreter", "compiler"
  std::string runtime;  ///< the interpreter or compiler used, with versions
  std::string entry;    ///< the function that answered, from the hello
  std::uint64_t seed = 0;
  int cases = 0;
  std::string timeout;
};

void print_header(std::ostream& os, const ReportHeader& h);

/// The block for a submission that cannot be graded: `headline` ("did not
/// compile"), a plain statement that this is not a score, the command that
/// failed, then the details (compiler messages, stderr...).
void print_not_gradable(std::ostream& os, const std::string& headline,
                        const std::string& details, const std::string& command);

/// "N passed, M failed" and, if something failed, the tail of the
/// submission's stderr.
void print_summary(std::ostream& os, const GradeResult& r, const std::string& stderr_tail);

}  // namespace attn::grader
