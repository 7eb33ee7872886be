// The table of declared formats (number_format.hpp has the contract).
#include "attn/ref/number_format.hpp"

#include <limits>
#include <vector>

#include "attn/ref/rounding.hpp"

namespace attn::ref {

namespace {

double round_double(double x) noexcept { return x; }
double round_float(double x) noexcept { return double(float(x)); }
double round_half(double x) noexcept { return double(round_to_float16(float(x))); }
double round_brain(double x) noexcept { return double(round_to_bfloat16(float(x))); }

// IEEE 754-2019, Table 3.5 (binary64: p = 53, emax = 1023; binary32: p = 24,
// emax = 127; binary16: p = 11, emax = 15) and bfloat16 (p = 8, emax = 127:
// binary32's sign and exponent, its fraction cut to 7 bits). Unit roundoff
// 2^-p, smallest normal 2^(1 - emax), largest finite (2 - 2^(1-p)) 2^emax.
constexpr std::array<FormatInfo, 4> kFormats{{
    {NumberFormat::float64, "float64", "double", {nullptr, nullptr}, 53, 0x1p-53, 0x1p-1022,
     std::numeric_limits<double>::max(), true, NumberFormat::float64, round_double},
    {NumberFormat::float32, "float32", "float", {nullptr, nullptr}, 24, 0x1p-24, 0x1p-126,
     double(std::numeric_limits<float>::max()), true, NumberFormat::float32, round_float},
    {NumberFormat::float16, "float16", nullptr, {"half", "fp16"}, 11, 0x1p-11, 0x1p-14, 65504.0, true,
     NumberFormat::float32, round_half},
    {NumberFormat::bfloat16, "bfloat16", nullptr, {"bf16", nullptr}, 8, 0x1p-8, 0x1p-126, 0x1.FEp127,
     true, NumberFormat::float32, round_brain},
}};

static_assert(kFormats[0].format == NumberFormat::float64 && kFormats[1].format == NumberFormat::float32 &&
              kFormats[2].format == NumberFormat::float16 && kFormats[3].format == NumberFormat::bfloat16,
              "one row per NumberFormat, in the enumerators' order");

}  // namespace

std::span<const FormatInfo> number_formats() noexcept { return kFormats; }

const FormatInfo& format_info(NumberFormat f) noexcept { return kFormats[static_cast<std::size_t>(f)]; }

const char* format_name(NumberFormat f) noexcept { return format_info(f).name; }

std::optional<NumberFormat> parse_format(std::string_view s) noexcept {
  for (const FormatInfo& row : kFormats) {
    if (s == row.name || (row.cpp_type && s == row.cpp_type)) return row.format;
    for (const char* alias : row.aliases)
      if (alias && s == alias) return row.format;
  }
  return std::nullopt;
}

std::string format_names(std::string_view quote, std::string_view last,
                         const std::function<bool(const FormatInfo&)>& keep) {
  std::vector<const char*> names;
  for (const FormatInfo& row : kFormats)
    if (!keep || keep(row)) names.push_back(row.name);
  std::string out;
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (k > 0) out += k + 1 == names.size() ? last : std::string_view(", ");
    out.append(quote).append(names[k]).append(quote);
  }
  return out;
}

double format_unit_roundoff(NumberFormat f) noexcept { return format_info(f).unit_roundoff; }

double format_smallest_normal(NumberFormat f) noexcept { return format_info(f).smallest_normal; }

double format_largest_finite(NumberFormat f) noexcept { return format_info(f).largest_finite; }

double round_to_format(NumberFormat f, double x) noexcept { return format_info(f).round(x); }

bool format_covers(NumberFormat wide, NumberFormat narrow) noexcept {
  // Every value of narrow is one of wide, and wide is at least as precise:
  // both ranges and significands nest (float16 and bfloat16 do not nest).
  const FormatInfo &w = format_info(wide), &n = format_info(narrow);
  return w.significand_bits >= n.significand_bits && w.largest_finite >= n.largest_finite &&
         w.smallest_normal <= n.smallest_normal;
}

}  // namespace attn::ref
