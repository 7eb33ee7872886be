#pragma once
// Text that a submission controls, made safe to show in a report.
//
// A submission decides the bytes of its error types and messages, its
// hello's fields, its stderr, the compiler's messages about its source and
// the name of its file. Printed raw, terminal escapes (cursor up, erase line)
// could rewrite what a teacher sees, a line of its stderr could pass for the
// grader's own "score:" line, and NUL, BEL or invalid UTF-8 would reach the
// report files. Every such string goes through untrusted_text() where it
// enters the grader, and multi-line text is printed fenced().

#include <cstddef>
#include <string>
#include <string_view>

namespace attn::grader {

/// Which end of an over-long text is kept: the start (a message) or the end
/// (a stderr tail, whose last lines say why the process stopped).
enum class Keep { head, tail };

/// `raw` as printable UTF-8: every valid UTF-8 sequence of a printable
/// character is kept; tab is kept; a newline is kept when `keep_newlines`,
/// else shown as the two characters "\n"; every other control character
/// (ESC, BEL, NUL, CR, DEL, the C1 controls) and every byte that is not part
/// of valid UTF-8 is shown as "\xNN". At most `max_bytes` bytes of `raw` are
/// used (the `keep` end, cut at a character boundary), and a cut is said:
/// "... [12345 more bytes not shown]". Never throws on any input.
std::string untrusted_text(std::string_view raw, std::size_t max_bytes,
                           bool keep_newlines = false, Keep keep = Keep::head);

/// Limits used across the grader, in bytes of the submission's text.
inline constexpr std::size_t kMaxErrorTypeBytes = 120;   ///< an exception's type name
inline constexpr std::size_t kMaxMessageBytes = 600;     ///< a message, a hello field
inline constexpr std::size_t kMaxCompilerBytes = 12000;  ///< compiler messages

/// Every line of `text` prefixed with `prefix` ("  | "), so no line the
/// submission wrote can be taken for one of the grader's. A final newline
/// is kept; an empty text stays empty.
std::string fenced(std::string_view text, std::string_view prefix = "  | ");

}  // namespace attn::grader
