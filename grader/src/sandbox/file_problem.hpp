#pragma once
// Why a path given where a file is expected cannot be read as one, in the
// user's terms: a directory is said to be a directory, not "no such file";
// and a long path shortened to a readable length for a note.

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace attn::grader {

/// Longest path shown in a note or a message (in bytes): a path an
/// archive or a folder holds may be thousands of bytes deep.
inline constexpr std::size_t kShownPathBytes = 100;

/// `text` as it is when it has at most `max_bytes` bytes (at least 9),
/// else its start and its end (the file's name) around "...", cut at UTF-8
/// character boundaries: "d000/d001/d0...d998/d999/attention.py".
inline std::string shortened(std::string_view text, std::size_t max_bytes = kShownPathBytes) {
  if (text.size() <= max_bytes) return std::string(text);
  const auto continuation = [&](std::size_t k) {
    return k < text.size() && (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80;
  };
  std::size_t head = (max_bytes - 3) / 3;       // a third from the start,
  std::size_t tail = text.size() - (max_bytes - 3 - head);  // the rest from the end
  while (head > 0 && continuation(head)) --head;
  while (continuation(tail)) ++tail;
  return std::string(text.substr(0, head)) + "..." + std::string(text.substr(tail));
}

/// Longest path the system takes in one call (Linux PATH_MAX, limits.h).
inline constexpr std::size_t kPathMaxBytes = 4096;

/// Why an entry whose path the system cannot take (ENAMETOOLONG: a name
/// over NAME_MAX, a path over PATH_MAX; path_resolution(7)) is left out,
/// `rel` its path below the folder walked or unpacked: "its path is too
/// long to unpack (7513 bytes, 1501 names deep; not unpacked)" (`verb`
/// "unpack", `done` "unpacked"; a class folder's: "read", "read").
inline std::string path_too_long_clause(const std::filesystem::path& rel, const std::string& verb,
                                        const std::string& done) {
  std::size_t depth = 0;
  for (const auto& part : rel) depth += !part.empty();
  return "its path is too long to " + verb + " (" + std::to_string(rel.string().size()) + " bytes, " +
         std::to_string(depth) + " names deep; not " + done + ")";
}

/// nullopt unless the system refuses `p` for its length (ENAMETOOLONG:
/// longer than PATH_MAX, or a name longer than NAME_MAX; path_resolution(7));
/// then the message, which says the file may well be there but cannot be
/// named by this path, with the path shortened.
inline std::optional<std::string> path_too_long(const std::filesystem::path& p,
                                                const std::string& what = "file");

/// nullopt when `p` is a regular file (or a link to one); otherwise the
/// message for the user, `what` naming the file expected ("file",
/// "answers file"): "no such answers file: x.json", "../f3 is a directory,
/// not a file", "/dev/null is not a regular file".
inline std::optional<std::string> not_a_file(const std::filesystem::path& p,
                                             const std::string& what = "file") {
  if (auto problem = path_too_long(p, what)) return problem;
  std::error_code ec;
  const std::filesystem::file_status s = std::filesystem::status(p, ec);
  if (std::filesystem::is_regular_file(s)) return std::nullopt;
  const std::string article =
      what.empty() || std::string("aeiou").find(what[0]) == std::string::npos ? "a " : "an ";
  if (std::filesystem::is_directory(s)) return p.string() + " is a directory, not " + article + what;
  if (std::filesystem::exists(s)) return p.string() + " is not a regular file (" + article + what + " is expected)";
  return "no such " + what + ": " + p.string();
}

inline std::optional<std::string> path_too_long(const std::filesystem::path& p, const std::string& what) {
  std::error_code ec;
  (void)std::filesystem::symlink_status(p, ec);
  if (ec != std::errc::filename_too_long) return std::nullopt;
  std::size_t longest = 0;
  for (const auto& part : p) longest = std::max(longest, part.string().size());
  const std::string shown = shortened(p.string());
  if (longest > 255)
    return "the " + what + " " + shown + " cannot be opened: one of its names is " +
           std::to_string(longest) + " bytes, more than the 255 a file name may have (NAME_MAX)";
  return "the " + what + " " + shown + " cannot be opened by this path: it is " +
         std::to_string(p.string().size()) + " bytes long, more than the " +
         std::to_string(kPathMaxBytes) + " the system takes (PATH_MAX); give a shorter path "
         "(cd into a folder nearer to it, or move it up)";
}

}  // namespace attn::grader
