#pragma once
// Reading a student's file without following links. A class folder, an
// upload or an unpacked archive may hold symbolic links (to the model
// solution, another student's file, the teacher configuration) and device
// files or FIFOs; the grader runs as root. Every step of a path below the
// student's folder is opened with openat(2) and O_NOFOLLOW (folders also
// with O_DIRECTORY), and the file itself with O_NONBLOCK, then checked with
// fstat(2) to be a regular file: a link planted anywhere below the folder,
// or swapped in after the folder was walked, is refused instead of read,
// and a FIFO never blocks (open(2): O_NOFOLLOW, O_NONBLOCK; openat(2)).

#include <sys/types.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace attn::grader {

/// A file that may not be read as a student's; what() says which and why
/// ("notes.py is a symbolic link (not followed)").
class RefusedFile : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A file type in words (stat(2) st_mode): "a regular file", "a folder",
/// "a symbolic link", "a FIFO", "a socket", "a character device",
/// "a block device", else "a special file".
std::string file_type_words(mode_t mode);

/// Opens `file` read-only and returns its descriptor (the caller closes it).
/// With `root` not empty, `file` must lie lexically below `root` (both as
/// given, or both absolute) and every component below `root` is opened
/// with O_NOFOLLOW; `root` itself is opened as named (the user chose it).
/// With `root` empty, only the last component is opened with O_NOFOLLOW.
/// Throws RefusedFile when a component is a link, a folder step is not a
/// folder, `file` is not a regular file or not below `root`; std::system_error
/// when it cannot be opened for another reason (permissions, missing).
int open_no_follow(const std::filesystem::path& file, const std::filesystem::path& root = {});

/// The content of `file`, opened as open_no_follow(file, root) (a student's
/// answers file). Throws as open_no_follow; RefusedFile when it holds more
/// than `max_bytes` ("answers.json is larger than 1048576 bytes");
/// std::system_error when reading fails.
std::string read_no_follow(const std::filesystem::path& file, const std::filesystem::path& root,
                           std::size_t max_bytes);

/// Copies `file`, opened as open_no_follow(file, root), to `dest` (created
/// or truncated; a link at `dest` is not followed) with mode `mode`.
/// Returns the source's st_mode. Throws as open_no_follow, and
/// std::system_error when reading or writing fails.
mode_t copy_no_follow(const std::filesystem::path& file, const std::filesystem::path& dest,
                      mode_t mode, const std::filesystem::path& root = {});

}  // namespace attn::grader
