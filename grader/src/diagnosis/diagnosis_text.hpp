#pragma once
// The diagnosis in words, for the text report, results.json's output and
// JUnit (diagnosis_stage.hpp). The explanation itself is the engine's, in
// the submission's language (attn::mis::Options::language).

#include <string>

#include "diagnosis/diagnosis_stage.hpp"

namespace attn::grader {

/// One line: "misconception wrong_scale (scale = 1/d_k)", "several fit:
/// finite_fill, max_floor", "no known mistake reproduces these answers",
/// "fault, not a misconception: ...", "raises on every call (AttributeError),
/// not a misconception", "the answers agree with the definition on the
/// battery", "not run: ...". Empty when not applicable.
std::string diagnosis_summary(const FailureDiagnosis& d);

/// The paragraph for a report: "diagnosis: <explanation>" wrapped at about
/// `width` columns, each line prefixed with `indent`, then the cost line
/// ("diagnosis cost: 9 extra cases, 412 entries, 0.031 s"; "reused from
/// <property>" for a cached one). Empty when not applicable.
std::string format_diagnosis(const FailureDiagnosis& d, const std::string& indent = "  ",
                             std::size_t width = 96);

/// "9 extra cases, 412 entries, 0.031 s" (the engine's cost), or "reused
/// from row_stochastic (no case sent)"; empty unless diagnosed.
std::string diagnosis_cost(const FailureDiagnosis& d);

/// `text` wrapped at about `width` columns: the first line prefixed with
/// `indent`, the next ones with `indent` plus six spaces.
std::string wrap_paragraph(const std::string& text, const std::string& indent, std::size_t width);

}  // namespace attn::grader
