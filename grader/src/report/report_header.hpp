#pragma once
// What every report says about how a submission was graded (the text
// report's header; results.json's and JUnit's summaries).

#include <cstdint>
#include <string>
#include <vector>

namespace attn::grader {

struct ReportHeader {
  std::string submission;
  std::string exercise;
  std::string title;  ///< the exercise's title ("Attention with an optional mask"); empty: not known yet
  std::string recognised;  ///< how the exercise was recognised ("it defines softmax_rows()"); empty: --exercise
  std::string language;
  std::string runtime_label = "runtime";  ///< "interpreter", "compiler"
  std::string runtime;  ///< the interpreter or compiler used, with versions
  std::string entry;    ///< the function that answered, from the hello
  /// The precision graded in and where it came from: "float32 (from the
  /// hello)", "float64 (the default)" (DeclaredPrecision::describe).
  std::string precision;
  std::uint64_t seed = 0;
  int cases = 0;
  std::string timeout;
  /// "student: the text's examples and a quick pass of 20 cases per property ...";
  /// empty for a full grading.
  std::string mode;
  /// Where the seed and case count come from when not the defaults
  /// ("the teacher configuration"); empty: command line or defaults.
  std::string settings_from;
  /// The sandbox's status line (sandbox.hpp), and the limits in force.
  std::string sandbox;
  std::string limits;
  std::string processes;  ///< how the process-count limit holds (sandbox.hpp: ProcessLimit)
  /// Notes on how the submission was read, one line each ("skipped 1 cell
  /// magic of the notebook ..."); shown in the brief header too.
  std::vector<std::string> notes;
  /// The text report's short header: submission, exercise, seed and cases;
  /// the runtime, timeout, limits and sandbox lines only with --verbose.
  bool brief = false;
};

}  // namespace attn::grader
