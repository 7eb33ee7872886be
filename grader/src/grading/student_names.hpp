#pragma once
// Names of students and of their report files in an output folder.
//
// A student's id is student_id() of its folder or file name (class_folder.hpp:
// valid UTF-8 kept, other bytes and '%' written %XX). Its report files are
// OUT/students/<stem>.txt, .results.json, .junit.xml (out_folder.hpp), where
// the stem is an escaping of the submission's shown name that is
// reversible (distinct names, distinct files), holds no '/', never starts
// with '.', and stays under the file-name limit (NAME_MAX, 255 bytes) by a
// hash; the full name stays in the gradebook.

#include <cstddef>
#include <string>
#include <vector>

namespace attn::grader {

/// The stem of a submission's report files from its shown name
/// ("alice/attention.py"): '%' written "%25", '/' "%2F", a leading '.'
/// "%2E", control bytes %XX (so "x/sub/a.py" -> "x%2Fsub%2Fa.py" and
/// "x__sub/a.py" -> "x__sub%2Fa.py" differ). A stem longer than 200 bytes
/// is cut at a character boundary and ends in "%h" and 16 hex digits of
/// the name's SHA-256, which no unshortened stem can contain.
std::string report_stem(const std::string& name);

/// "students/<stem>.txt": a submission's text report, relative to OUT.
std::string report_path(const std::string& name);

/// SHA-256 (FIPS 180-4) of `bytes`, as 64 lower-case hex digits (OpenSSL's EVP).
std::string sha256_hex(const std::string& bytes);

/// The `n` bytes at `bytes` as 2n lower-case hex digits (a digest, a MAC).
std::string lower_hex(const unsigned char* bytes, std::size_t n);

/// The key under which two names look alike: Unicode NFC (UAX #15, by
/// ICU's Normalizer2) of the name with its default-ignorable code points
/// (zero-width space and joiners U+200B-U+200D, word joiner U+2060, BOM
/// U+FEFF, soft hyphen, ...: ICU's UCHAR_DEFAULT_IGNORABLE_CODE_POINT)
/// removed, then mapped to its confusable skeleton (UTS #39, section 4, by
/// ICU's uspoof). "Jose\u0301" and "Jos\u00e9" have one key; so do "ana",
/// "a\u200bna" and "\u0430na" (Cyrillic a). A name that is not valid UTF-8
/// is its own key.
std::string look_alike_key(const std::string& name);

/// `name` with each non-ASCII code point written "<U+XXXX>", so that names
/// which look alike print differently ("Jos<U+00E9>", "Jose<U+0301>").
std::string visible_name(const std::string& name);

/// The groups (2 or more names, in name order) of `names` that are distinct
/// but share a look_alike_key.
std::vector<std::vector<std::string>> look_alike_groups(const std::vector<std::string>& names);

}  // namespace attn::grader
