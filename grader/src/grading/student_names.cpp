// Report stems and look-alike student names (see student_names.hpp).
#include "grading/student_names.hpp"

#include <openssl/evp.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/uspoof.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "grading/out_folder.hpp"

namespace attn::grader {

namespace {

constexpr std::size_t kMaxStem = 200;  // + ".results.json" stays far below NAME_MAX (255)
constexpr std::size_t kCutStem = 160;

}  // namespace

std::string sha256_hex(const std::string& bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &n, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL's SHA-256 failed");
  return lower_hex(md, n);
}

std::string lower_hex(const unsigned char* bytes, std::size_t n) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (std::size_t k = 0; k < n; ++k) {
    out += hex[bytes[k] >> 4];
    out += hex[bytes[k] & 15];
  }
  return out;
}

std::string report_stem(const std::string& name) {
  static const char* hex = "0123456789ABCDEF";
  std::string stem;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto b = static_cast<unsigned char>(name[i]);
    if (b == '%' || b == '/' || b < 0x20 || b == 0x7f || (b == '.' && i == 0)) {
      stem += '%';
      stem += hex[b >> 4];
      stem += hex[b & 15];
    } else {
      stem += name[i];
    }
  }
  if (stem.empty()) return "%00";  // no name: a stem no name gives
  if (stem.size() <= kMaxStem) return stem;
  // Cut before a UTF-8 continuation byte or inside a %XX escape: never.
  std::size_t cut = kCutStem;
  while (cut > 0 && ((static_cast<unsigned char>(stem[cut]) & 0xc0) == 0x80 ||
                     stem[cut - 1] == '%' || (cut >= 2 && stem[cut - 2] == '%')))
    --cut;
  return stem.substr(0, cut) + "%h" + sha256_hex(name).substr(0, 16);
}

std::string report_path(const std::string& name) {
  return std::string(kReportsFolder) + "/" + report_stem(name) + ".txt";
}

std::string look_alike_key(const std::string& name) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) return name;
  const icu::UnicodeString text = icu::UnicodeString::fromUTF8(name);
  icu::UnicodeString kept;
  for (int32_t i = 0; i < text.length();) {
    const UChar32 c = text.char32At(i);
    if (!u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT)) kept.append(c);
    i += U16_LENGTH(c);
  }
  const icu::UnicodeString normal = nfc->normalize(kept, status);
  if (U_FAILURE(status)) return name;
  // The confusable skeleton of UTS #39 (section 4): Cyrillic "\u0430" and
  // Latin "a" have one. ICU's checker is thread-safe once opened (uspoof.h).
  static USpoofChecker* const checker = [] {
    UErrorCode s = U_ZERO_ERROR;
    USpoofChecker* c = uspoof_open(&s);
    return U_FAILURE(s) ? nullptr : c;
  }();
  icu::UnicodeString skeleton;
  if (checker) uspoof_getSkeletonUnicodeString(checker, 0, normal, skeleton, &status);
  std::string out;
  (checker && U_SUCCESS(status) ? skeleton : normal).toUTF8String(out);
  return out;
}

std::string visible_name(const std::string& name) {
  const icu::UnicodeString text = icu::UnicodeString::fromUTF8(name);
  std::string out;
  for (int32_t i = 0; i < text.length();) {
    const UChar32 c = text.char32At(i);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      char buf[16];
      std::snprintf(buf, sizeof buf, "<U+%04X>", static_cast<unsigned>(c));
      out += buf;
    }
    i += U16_LENGTH(c);
  }
  return out;
}

std::vector<std::vector<std::string>> look_alike_groups(const std::vector<std::string>& names) {
  std::map<std::string, std::vector<std::string>> by_key;
  for (const auto& n : names) {
    auto& group = by_key[look_alike_key(n)];
    if (std::find(group.begin(), group.end(), n) == group.end()) group.push_back(n);
  }
  std::vector<std::vector<std::string>> out;
  for (auto& [key, group] : by_key)
    if (group.size() > 1) {
      std::sort(group.begin(), group.end());
      out.push_back(group);
    }
  return out;
}

}  // namespace attn::grader
