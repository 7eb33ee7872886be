#pragma once
// Files replaced whole, never in part: the one way attnlab writes an output
// file (the --out folder's reports and gradebook, grade's --results-json,
// --prairielearn-json, --junit and --report, check's --junit and --report).
// A reader sees the old file or the new one; a write that fails leaves the
// old file as it was.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace attn::grader {

/// Replaces `file` by `content` whole: written to a temporary file with a
/// unique name in the same folder (mkstemp(3)), fsync'd, renamed over
/// `file` (rename(2) is atomic: a reader sees the old file or the new one,
/// never a part), then the folder fsync'd. The folder must exist. `file`
/// becomes a new file (mode 0644): other names of the old one (hard links)
/// keep the old content, and a symbolic link at `file` is replaced, never
/// followed (so the grader's own folders only; see write_file_creating_folder). Throws std::runtime_error naming the file and errno's words
/// ("No space left on device", "Permission denied"); `file` is then as it
/// was and the temporary is removed.
void write_file_atomically(const std::filesystem::path& file, const std::string& content);

/// Several files replaced together: every one is written to its temporary
/// first; only when all are written are they renamed, in the order given
/// (put the one readers trust last). Throws as write_file_atomically,
/// having renamed none when a write fails.
void write_files_atomically(const std::vector<std::pair<std::filesystem::path, std::string>>& files);

/// write_file_atomically after creating `file`'s folder if it is missing
/// (a report asked for at a path in a new folder). A `file` that is neither
/// a regular file nor a folder (lstat(2)): a symbolic link
/// (--results-json /dev/stdout, a link the user keeps), a FIFO, a device,
/// is written through as it is (std::ofstream), never replaced. Throws as
/// write_file_atomically, or naming the folder that cannot be created.
void write_file_creating_folder(const std::filesystem::path& file, const std::string& content);

}  // namespace attn::grader
