// Constants of the declared formats (number_format.hpp has the contract).
#include "attn/ref/number_format.hpp"

#include <limits>

#include "attn/ref/rounding.hpp"

namespace attn::ref {

const char* format_name(NumberFormat f) noexcept {
  switch (f) {
    case NumberFormat::float64: return "float64";
    case NumberFormat::float32: return "float32";
    case NumberFormat::float16: return "float16";
    case NumberFormat::bfloat16: return "bfloat16";
  }
  return "?";
}

std::optional<NumberFormat> parse_format(std::string_view s) noexcept {
  if (s == "float64" || s == "double") return NumberFormat::float64;
  if (s == "float32" || s == "float") return NumberFormat::float32;
  if (s == "float16" || s == "fp16" || s == "half") return NumberFormat::float16;
  if (s == "bfloat16" || s == "bf16") return NumberFormat::bfloat16;
  return std::nullopt;
}

double format_unit_roundoff(NumberFormat f) noexcept {
  switch (f) {
    case NumberFormat::float64: return 0x1p-53;
    case NumberFormat::float32: return 0x1p-24;
    case NumberFormat::float16: return kFloat16UnitRoundoff;
    case NumberFormat::bfloat16: return kBfloat16UnitRoundoff;
  }
  return 0x1p-53;
}

double format_smallest_normal(NumberFormat f) noexcept {
  switch (f) {
    case NumberFormat::float64: return 0x1p-1022;
    case NumberFormat::float32: return 0x1p-126;
    case NumberFormat::float16: return kFloat16SmallestNormal;
    case NumberFormat::bfloat16: return kBfloat16SmallestNormal;
  }
  return 0x1p-1022;
}

double format_largest_finite(NumberFormat f) noexcept {
  switch (f) {
    case NumberFormat::float64: return std::numeric_limits<double>::max();
    case NumberFormat::float32: return double(std::numeric_limits<float>::max());
    case NumberFormat::float16: return 65504.0;
    case NumberFormat::bfloat16: return 0x1.FEp127;
  }
  return std::numeric_limits<double>::max();
}

double round_to_format(NumberFormat f, double x) noexcept {
  switch (f) {
    case NumberFormat::float64: return x;
    case NumberFormat::float32: return double(float(x));
    case NumberFormat::float16: return double(round_to_float16(float(x)));
    case NumberFormat::bfloat16: return double(round_to_bfloat16(float(x)));
  }
  return x;
}

bool format_covers(NumberFormat wide, NumberFormat narrow) noexcept {
  if (wide == narrow || wide == NumberFormat::float64) return true;
  if (wide == NumberFormat::float32) return narrow != NumberFormat::float64;
  return false;  // float16 and bfloat16 cover only themselves
}

}  // namespace attn::ref
