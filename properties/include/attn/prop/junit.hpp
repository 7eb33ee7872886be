#pragma once
// JUnit XML, the one writer of the project (pugixml): check_kernel's report
// and the grader's (grader/src/report/junit_report.cpp) both render their
// results as JunitSuite values and write them here. The schema followed is
// the common one CI systems read (Jenkins' junit.xsd): <testsuites> holding
// <testsuite name tests failures errors skipped time> with <properties>,
// <testcase classname name time> and in it at most one of <failure>,
// <error>, <skipped>, then <system-out>; a suite's <system-out> and
// <system-err> close it.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace attn::prop {

/// One <testcase>.
struct JunitTestcase {
  enum class Status { passed, failure, error, skipped };
  std::string classname;  ///< "attnlab.kernel.my_attention"
  std::string name;       ///< "row_stochastic"
  double seconds = 0;
  Status status = Status::passed;
  /// For failure, error and skipped: the one-line message attribute.
  std::string message;
  /// For failure and error: the type attribute and the element's text.
  std::string type;
  std::string text;
  /// <system-out> of the testcase; omitted when empty.
  std::string system_out;
};

/// One <testsuite>; tests, failures, errors and skipped are counted from `cases`.
struct JunitSuite {
  std::string name;
  /// <properties>, in order (name, value).
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JunitTestcase> cases;
  /// The suite's time attribute; negative: the sum of the cases' seconds.
  double seconds = -1;
  /// <system-out> of the suite (after its testcases); omitted when empty.
  std::string system_out;
  /// <system-err> of the suite; omitted when empty.
  std::string system_err;
};

/// A JUnit document: <testsuites name="attnlab"> with one <testsuite> per
/// suite and the totals as attributes. Every text is passed through xml_safe.
std::string junit_xml(const std::vector<JunitSuite>& suites);

/// Writes junit_xml(suites) to `file` in place (std::ofstream), creating its
/// folder. Throws std::runtime_error if it cannot. The grader writes the text
/// of junit_xml whole instead (grader/src/sandbox/atomic_file.hpp).
void write_junit_file(const std::filesystem::path& file, const std::vector<JunitSuite>& suites);

/// The <testsuite> elements of several JUnit files merged into one document
/// (<testsuites>, totals recounted); a file that cannot be read or parsed, or
/// holds no testsuite, becomes a <testsuite> with one <error> naming it.
std::string merged_junit_xml(const std::vector<std::filesystem::path>& parts);

/// `text` as valid UTF-8 without the characters XML 1.0 forbids: invalid
/// bytes become U+FFFD, control characters other than tab, newline and
/// carriage return become "\xNN".
std::string xml_safe(const std::string& text);

}  // namespace attn::prop
