#pragma once
// A name (a file's, an archive member's, an exercise id from a file) made
// safe to show on a console, in a report or a CSV cell: it keeps every
// valid UTF-8 character but the control ones, so a name cannot start a line
// of its own (a forged "score:" line), move the cursor or recolour the
// terminal (ESC), and distinct names keep distinct forms.

#include <string>
#include <string_view>

namespace attn::grader {

/// `name` as it is when it is valid UTF-8 (RFC 3629) without '%' or
/// control characters (C0, DEL, and the C1 controls U+0080-U+009F, which
/// some terminals read as escape sequences; ECMA-48 section 5); else each
/// such byte written %XX (hex, upper case: every byte of a C1 character's
/// UTF-8 form, every byte of a malformed sequence) and '%' as %25, so the
/// form is reversible byte by byte ("jos\xe9" -> "jos%E9", "a\nb" ->
/// "a%0Ab", "100%" -> "100%25"). Never throws but std::bad_alloc.
std::string escaped_name(std::string_view name);

}  // namespace attn::grader
