// Names made safe to show (see escaped_name.hpp).
#include "sandbox/escaped_name.hpp"

namespace attn::grader {

std::string escaped_name(std::string_view name) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  auto escape = [&](unsigned char b) {
    out += '%';
    out += hex[b >> 4];
    out += hex[b & 15];
  };
  const auto* p = reinterpret_cast<const unsigned char*>(name.data());
  const std::size_t n = name.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char b = p[i];
    if (b < 0x80) {
      if (b == '%' || b < 0x20 || b == 0x7f) escape(b); else out += char(b);
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
    // surrogates, at most U+10FFFF) is kept; any other byte is escaped.
    std::size_t len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xc0) == 0x80;
    if (ok && len == 3) ok = !(b == 0xe0 && p[i + 1] < 0xa0) && !(b == 0xed && p[i + 1] >= 0xa0);
    if (ok && len == 4) ok = !(b == 0xf0 && p[i + 1] < 0x90) && !(b == 0xf4 && p[i + 1] >= 0x90);
    if (ok && b == 0xc2 && p[i + 1] <= 0x9f) {  // a C1 control, U+0080-U+009F: both bytes
      escape(p[i]);
      escape(p[i + 1]);
      i += 2;
      continue;
    }
    if (!ok) {
      escape(b);
      ++i;
      continue;
    }
    out.append(name.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace attn::grader
