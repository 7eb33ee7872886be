#pragma once
// The text report for people: header, per-property verdicts (printed by
// attn::prop::print_verdict) each with its hint when it failed and its
// points, summary with the score.

#include <ostream>
#include <string>

#include "report/grade_result.hpp"
#include "report/scoring.hpp"
#include "attn/prop/verdict.hpp"

namespace attn::grader {

void print_header(std::ostream& os, const ReportHeader& h);

/// print_not_gradable, and the same recorded in r (not_gradable_headline,
/// details, command) for the other reports.
void report_not_gradable(std::ostream& os, GradeResult& r, const std::string& headline,
                         const std::string& details, const std::string& command);

/// Scores `v` with `rules` (scoring.hpp), prints it (the verdict, the
/// diagnosis and the hint when it failed, the points) and records it in r:
/// verdicts, items, passed/failed, score and max_score. `seconds`: how long
/// it took; `diagnosis`: the diagnosis stage's result for v, if it ran.
void record_verdict(std::ostream& os, GradeResult& r, attn::prop::Verdict v,
                    const ScoringRules& rules, double seconds = 0,
                    const FailureDiagnosis* diagnosis = nullptr);

/// The block for a submission that cannot be graded: `headline` ("did not
/// compile"), a plain statement that this is not a score, the command that
/// failed, then the details (compiler messages, stderr...).
void print_not_gradable(std::ostream& os, const std::string& headline,
                        const std::string& details, const std::string& command);

/// "N passed, M failed", the score "S / M points" and, if something
/// failed, the tail of the submission's stderr.
void print_summary(std::ostream& os, const GradeResult& r, const std::string& stderr_tail);

}  // namespace attn::grader
