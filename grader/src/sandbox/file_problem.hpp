#pragma once
// Why a path given where a file is expected cannot be read as one, in the
// user's terms: a directory is said to be a directory, not "no such file".

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

namespace attn::grader {

/// nullopt when `p` is a regular file (or a link to one); otherwise the
/// message for the user, `what` naming the file expected ("file",
/// "answers file"): "no such answers file: x.json", "../f3 is a directory,
/// not a file", "/dev/null is not a regular file".
inline std::optional<std::string> not_a_file(const std::filesystem::path& p,
                                             const std::string& what = "file") {
  std::error_code ec;
  const std::filesystem::file_status s = std::filesystem::status(p, ec);
  if (std::filesystem::is_regular_file(s)) return std::nullopt;
  const std::string article =
      what.empty() || std::string("aeiou").find(what[0]) == std::string::npos ? "a " : "an ";
  if (std::filesystem::is_directory(s)) return p.string() + " is a directory, not " + article + what;
  if (std::filesystem::exists(s)) return p.string() + " is not a regular file (" + article + what + " is expected)";
  return "no such " + what + ": " + p.string();
}

}  // namespace attn::grader
