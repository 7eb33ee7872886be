// Sanitising and fencing the text a submission controls.
#include "protocol/untrusted_text.hpp"

#include <cstdint>

namespace attn::grader {
namespace {

/// Length of the valid UTF-8 sequence starting at s[i] (1-4), or 0 if the
/// bytes there are not one (overlong forms, surrogates and values above
/// U+10FFFF are invalid, RFC 3629 section 4).
std::size_t utf8_length(std::string_view s, std::size_t i, std::uint32_t& code) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  if (c < 0x80) {
    code = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    code = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    code = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    code = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (b(k) & 0x3F);
  }
  if ((n == 3 && code < 0x800) || (n == 4 && (code < 0x10000 || code > 0x10FFFF)) ||
      (code >= 0xD800 && code <= 0xDFFF))
    return 0;
  return n;
}

void append_escape(std::string& out, unsigned char c) {
  static const char* hex = "0123456789abcdef";
  out += "\\x";
  out += hex[c >> 4];
  out += hex[c & 0xF];
}

/// True for code points shown as escapes although valid UTF-8: the C1
/// controls, and the bidirectional overrides that reorder what a terminal
/// shows (U+202A-U+202E, U+2066-U+2069).
bool hidden_control(std::uint32_t code) {
  return (code >= 0x80 && code <= 0x9F) || (code >= 0x202A && code <= 0x202E) ||
         (code >= 0x2066 && code <= 0x2069);
}

}  // namespace

std::string untrusted_text(std::string_view raw, std::size_t max_bytes, bool keep_newlines,
                           Keep keep) {
  std::size_t cut = 0;
  if (raw.size() > max_bytes) {
    cut = raw.size() - max_bytes;
    if (keep == Keep::head) {
      std::size_t end = max_bytes;
      // Do not split a UTF-8 sequence: back up to its first byte.
      while (end > 0 && (static_cast<unsigned char>(raw[end]) & 0xC0) == 0x80) --end;
      cut = raw.size() - end;
      raw = raw.substr(0, end);
    } else {
      std::size_t start = raw.size() - max_bytes;
      while (start < raw.size() && (static_cast<unsigned char>(raw[start]) & 0xC0) == 0x80) ++start;
      cut = start;
      raw = raw.substr(start);
    }
  }
  std::string out;
  out.reserve(raw.size() + 16);
  if (cut > 0 && keep == Keep::tail) out += "[" + std::to_string(cut) + " earlier bytes not shown] ";
  for (std::size_t i = 0; i < raw.size();) {
    const unsigned char c = static_cast<unsigned char>(raw[i]);
    if (c == '\n') {
      out += keep_newlines ? "\n" : "\\n";
      ++i;
      continue;
    }
    if (c == '\t') {
      out += '\t';
      ++i;
      continue;
    }
    std::uint32_t code = 0;
    const std::size_t n = utf8_length(raw, i, code);
    if (n == 0 || code < 0x20 || code == 0x7F || hidden_control(code)) {
      if (n == 0 || n == 1) {
        append_escape(out, c);
        ++i;
      } else {
        for (std::size_t k = 0; k < n; ++k) append_escape(out, static_cast<unsigned char>(raw[i + k]));
        i += n;
      }
      continue;
    }
    out.append(raw.substr(i, n));
    i += n;
  }
  if (cut > 0 && keep == Keep::head) out += " ... [" + std::to_string(cut) + " more bytes not shown]";
  return out;
}

std::string fenced(std::string_view text, std::string_view prefix) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    out += prefix;
    out.append(text.substr(start, end - start));
    if (nl == std::string_view::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

}  // namespace attn::grader
