#pragma once
// The floating-point formats a subject may declare (IEEE 754-2019 binary64,
// binary32, binary16, and bfloat16: the top 16 bits of a binary32), with
// their constants and round-to-nearest-even into each. Used for the
// declared precision (storage and accumulation types, reference/TOLERANCE.md
// "Storage and accumulation types").

#include <array>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace attn::ref {

enum class NumberFormat { float64, float32, float16, bfloat16 };

/// One row of the table of formats: everything attnlab knows about a format.
/// Adding a format is its enumerator above and its row in number_format.cpp
/// (docs/ARCHITECTURE.md, "How to add", lists what else names formats).
/// Code outside it names a format by its enumerator and asks the table for
/// its names and numbers (lib/, which does not depend on reference/, names
/// only its own C++ types, float and double).
struct FormatInfo {
  NumberFormat format;
  const char* name;                    ///< "float16": reports, the command line
  /// The C++ type holding exactly this format, "double" or "float", also
  /// read as a name of it; nullptr when C++ has none (the 16-bit formats).
  const char* cpp_type;
  std::array<const char*, 2> aliases;  ///< "half", "fp16" (nullptr: none)
  int significand_bits;                ///< 53, 24, 11, 8 (with the implicit bit)
  double unit_roundoff;                ///< 2^-significand_bits
  double smallest_normal;              ///< 2^-1022, 2^-126, 2^-14, 2^-126
  double largest_finite;               ///< DBL_MAX, FLT_MAX, 65504, (2 - 2^-7) 2^127
  bool has_infinity;                   ///< IEEE 754 +-Inf (all four)
  /// The accumulation type a kernel storing in this format uses unless it
  /// declares another: float32 for the 16-bit formats (as FlashAttention
  /// computes), the format itself otherwise.
  NumberFormat default_accumulate;
  /// x rounded to the format, ties to even (via float32 for the 16-bit
  /// formats); overflow gives +-Inf.
  double (*round)(double x) noexcept;
};

/// The table, one row per NumberFormat, in the enumerators' order.
std::span<const FormatInfo> number_formats() noexcept;
/// The row of format f.
const FormatInfo& format_info(NumberFormat f) noexcept;

/// "float64", "float32", "float16", "bfloat16".
const char* format_name(NumberFormat f) noexcept;
/// The format named `s`: the four names above, the C++ types "double" and
/// "float", and the aliases "half", "fp16", "bf16"; std::nullopt for
/// anything else (case matters).
std::optional<NumberFormat> parse_format(std::string_view s) noexcept;
/// The names of the formats `keep` accepts (all when empty) in the table's
/// order, each between `quote`s, separated by ", " and the last by `last`:
/// format_names() = "float64, float32, float16, bfloat16";
/// format_names("\"", " or ") = "\"float64\", \"float32\", \"float16\" or
/// \"bfloat16\"" (for messages and help listing the valid names).
std::string format_names(std::string_view quote = "", std::string_view last = ", ",
                         const std::function<bool(const FormatInfo&)>& keep = {});
/// The format a C++ floating type stores: float64 for double, float32 for float.
template <class T>
constexpr NumberFormat format_of() noexcept {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "float or double");
  return std::is_same_v<T, double> ? NumberFormat::float64 : NumberFormat::float32;
}
/// Unit roundoff: 2^-53, 2^-24, 2^-11, 2^-8.
double format_unit_roundoff(NumberFormat f) noexcept;
/// Smallest positive normal number: 2^-1022, 2^-126, 2^-14, 2^-126.
double format_smallest_normal(NumberFormat f) noexcept;
/// Largest finite value: DBL_MAX, FLT_MAX, 65504, (2 - 2^-7) 2^127.
double format_largest_finite(NumberFormat f) noexcept;
/// x rounded to the format, ties to even (via float32 for the 16-bit
/// formats, which is exact for a double that is already a float32, and
/// within one narrow ulp otherwise). Overflow gives +-Inf. Never throws.
double round_to_format(NumberFormat f, double x) noexcept;
/// True if every value of `narrow` is a value of `wide` and `wide`'s unit
/// roundoff is no larger: an accumulation type must cover its storage type.
bool format_covers(NumberFormat wide, NumberFormat narrow) noexcept;

}  // namespace attn::ref
