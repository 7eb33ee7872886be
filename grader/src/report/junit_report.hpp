#pragma once
// JUnit XML for CI: one <testsuite> per submission, one <testcase> per
// graded item; a failing item carries <failure message="summary; hint">
// with the verdict text (counterexample, worst entry, seed, hint) as its
// body, a skipped one <skipped/>. A submission that is not gradable (or
// that the grader could not grade) is one <testcase> with an <error>.
// Rendered as attn::prop::JunitSuite values and written by the project's one
// JUnit writer (properties/, attn/prop/junit.hpp, pugixml); text from a
// submission (stderr, error messages) is made valid XML 1.0 there (xml_safe).
// What of a student's folder was not read (GradeResult::refused) is the
// suite's <system-out>; the submission's stderr its <system-err>.

#include <filesystem>
#include <string>
#include <vector>

#include "report/grade_result.hpp"

namespace attn::grader {

/// A JUnit document (<testsuites>) holding one <testsuite> per result.
std::string junit_xml(const std::vector<const GradeResult*>& results);

/// Replaces `file` (its folder created if missing) by junit_xml({&r}) whole
/// (sandbox/atomic_file.hpp). Throws std::runtime_error naming the file if it
/// cannot; `file` is then as it was.
void write_junit(const std::filesystem::path& file, const GradeResult& r);

/// Merges the <testsuite> elements of several JUnit files (as written by
/// write_junit) into one document at `file`; a file that cannot be read or
/// parsed becomes a <testsuite> with one <error> naming it. `file` is
/// replaced whole as by write_junit. Throws std::runtime_error if it cannot.
void merge_junit_files(const std::vector<std::filesystem::path>& parts,
                       const std::filesystem::path& file);

/// `text` as valid UTF-8 without the characters XML 1.0 forbids: invalid
/// bytes become U+FFFD, control characters other than tab, newline and
/// carriage return become "\xNN".
std::string xml_safe(const std::string& text);

}  // namespace attn::grader
