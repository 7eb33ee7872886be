// Reading a JSON text strictly: a member named twice in one object is
// refused, and nlohmann-json's errors are said as a person reads them.
// Used for the teacher configuration (grading/teacher_config.cpp) and a
// student's answers file (answers.cpp).
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace attn::grader {

/// A JSON object names a member twice. RFC 8259 section 4 says names
/// "SHOULD be unique" and leaves a repeated one to the reader
/// (nlohmann-json keeps the last), so either value could be meant.
/// what(): `the member "exercises.F3.points" is given twice; JSON keeps
/// only one of them (which, depends on the reader), so remove the other`.
struct DuplicateMember : std::runtime_error {
  explicit DuplicateMember(const std::string& member);
  std::string member;  ///< its path from the top: "exercises.F3.points" ("cases" at the top level)
};

/// `text` parsed as JSON, refusing an object that names a member twice
/// (nlohmann-json's parser callback, one set of names per open object).
/// Throws DuplicateMember, or nlohmann::json::exception when `text` is not
/// JSON (parse_error; out_of_range for a number too large, 1e400).
nlohmann::json parse_json_unique_members(const std::string& text);

/// A parse error as a person reads it: "line 3 column 7: syntax error while
/// parsing value - invalid literal; last read: 'NaN'" (nlohmann's message
/// without its "[json.exception.parse_error.101] parse error at line 3,
/// column 7: " prefix); any other error: its message without the
/// "[json.exception....] " prefix.
std::string json_error_text(const std::exception& e);

}  // namespace attn::grader
