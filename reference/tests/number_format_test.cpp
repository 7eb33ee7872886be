// The table of number formats against the C++ types' own limits
// (std::numeric_limits, for float64 and float32) and against the formats'
// definitions (IEEE 754-2019, section 3.3 and Table 3.5: a binary format of
// precision p and largest exponent emax has unit roundoff 2^-p, smallest
// normal 2^(1 - emax) and largest finite (2 - 2^(1-p)) 2^emax; binary16:
// p = 11, emax = 15; bfloat16: binary32's sign and 8-bit exponent, emax =
// 127, with 7 fraction bits, p = 8, as defined in Intel's white paper
// "BFLOAT16 - Hardware Numerics Definition", 338302-001US, November 2018),
// so a row typed wrong fails here.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "attn/ref/number_format.hpp"

using attn::ref::FormatInfo;
using attn::ref::NumberFormat;

namespace {

/// The row's constants are those of a binary format with precision p and
/// largest exponent emax (IEEE 754-2019, section 3.3).
void check_binary_format(const FormatInfo& f, int p, int emax) {
  INFO(f.name);
  CHECK(f.significand_bits == p);
  CHECK(f.unit_roundoff == std::ldexp(1.0, -p));
  CHECK(f.smallest_normal == std::ldexp(1.0, 1 - emax));
  CHECK(f.largest_finite == std::ldexp(2.0 - std::ldexp(1.0, 1 - p), emax));
  CHECK(f.has_infinity);
}

/// The row of the format stored by the C++ type T agrees with
/// std::numeric_limits<T> (unit roundoff = epsilon / 2, round to nearest).
template <class T>
void check_against_limits(const FormatInfo& f) {
  using L = std::numeric_limits<T>;
  INFO(f.name);
  CHECK(f.format == attn::ref::format_of<T>());
  CHECK(f.significand_bits == L::digits);
  CHECK(f.unit_roundoff == double(L::epsilon()) / 2);
  CHECK(f.smallest_normal == double(L::min()));
  CHECK(f.largest_finite == double(L::max()));
  CHECK(f.has_infinity == L::has_infinity);
  CHECK(L::round_style == std::round_to_nearest);
  // Its rounding function is the C++ conversion to T.
  for (double x : {1.0 / 3, -2.0 / 3, 1e-300, 3e38, 1 + 0x1p-40})
    CHECK(f.round(x) == double(T(x)));
}

}  // namespace

TEST_CASE("number formats: float64 and float32 are std::numeric_limits' double and float", "[formats]") {
  check_against_limits<double>(attn::ref::format_info(NumberFormat::float64));
  check_against_limits<float>(attn::ref::format_info(NumberFormat::float32));
}

TEST_CASE("number formats: every row is the binary format its definition gives", "[formats]") {
  check_binary_format(attn::ref::format_info(NumberFormat::float64), 53, 1023);
  check_binary_format(attn::ref::format_info(NumberFormat::float32), 24, 127);
  check_binary_format(attn::ref::format_info(NumberFormat::float16), 11, 15);
  check_binary_format(attn::ref::format_info(NumberFormat::bfloat16), 8, 127);
  // The figures as usually printed: binary16's largest finite 65504,
  // bfloat16's about 3.3895e38.
  CHECK(attn::ref::format_largest_finite(NumberFormat::float16) == 65504.0);
  CHECK(attn::ref::format_largest_finite(NumberFormat::bfloat16) == Approx(3.3895e38).epsilon(1e-4));
}

TEST_CASE("number formats: one row per format, in order, its rounding consistent with its constants",
          "[formats]") {
  const auto rows = attn::ref::number_formats();
  REQUIRE(rows.size() == 4);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const FormatInfo& f = rows[k];
    INFO(f.name);
    CHECK(static_cast<std::size_t>(f.format) == k);
    CHECK(&attn::ref::format_info(f.format) == &f);
    CHECK(attn::ref::format_name(f.format) == std::string(f.name));
    CHECK(attn::ref::format_unit_roundoff(f.format) == f.unit_roundoff);
    CHECK(attn::ref::format_smallest_normal(f.format) == f.smallest_normal);
    CHECK(attn::ref::format_largest_finite(f.format) == f.largest_finite);
    // Rounding: 1 + u is a tie (to even: 1), 1 + 3u rounds up to 1 + 4u,
    // the largest finite value stays, twice it overflows.
    CHECK(f.round(1 + f.unit_roundoff) == 1.0);
    CHECK(attn::ref::round_to_format(f.format, 1 + 3 * f.unit_roundoff) == 1 + 4 * f.unit_roundoff);
    CHECK(f.round(f.largest_finite) == f.largest_finite);
    CHECK(std::isinf(f.round(2 * f.largest_finite)) == f.has_infinity);
    CHECK(f.round(f.smallest_normal) == f.smallest_normal);
    CHECK(attn::ref::format_covers(f.default_accumulate, f.format));
  }
}

TEST_CASE("number formats: every name, C++ type and alias resolves to its row, nothing else does",
          "[formats]") {
  std::set<std::string> seen;
  for (const FormatInfo& f : attn::ref::number_formats()) {
    INFO(f.name);
    CHECK(attn::ref::parse_format(f.name) == f.format);
    CHECK(seen.insert(f.name).second);
    if (f.cpp_type) {
      CHECK(attn::ref::parse_format(f.cpp_type) == f.format);
      CHECK(seen.insert(f.cpp_type).second);
    }
    for (const char* alias : f.aliases)
      if (alias) {
        CHECK(attn::ref::parse_format(alias) == f.format);
        CHECK(seen.insert(alias).second);  // no name means two formats
      }
  }
  // The names the protocol and the command line document (grader/PROTOCOL.md, hello).
  for (const char* name : {"float64", "double", "float32", "float", "float16", "half", "fp16", "bfloat16", "bf16"})
    CHECK(seen.count(name) == 1);
  for (const char* not_a_format : {"", "Float32", "float8", "fp32", "long double", "float16 "})
    CHECK_FALSE(attn::ref::parse_format(not_a_format).has_value());
  CHECK(attn::ref::format_names() == "float64, float32, float16, bfloat16");
  CHECK(attn::ref::format_names("'", " or ") == "'float64', 'float32', 'float16' or 'bfloat16'");
}

TEST_CASE("number formats: which accumulation type covers which storage type", "[formats]") {
  using F = NumberFormat;
  CHECK(attn::ref::format_covers(F::float64, F::bfloat16));
  CHECK(attn::ref::format_covers(F::float32, F::float16));
  CHECK(attn::ref::format_covers(F::float32, F::bfloat16));
  CHECK_FALSE(attn::ref::format_covers(F::float32, F::float64));
  CHECK_FALSE(attn::ref::format_covers(F::float16, F::bfloat16));  // range
  CHECK_FALSE(attn::ref::format_covers(F::bfloat16, F::float16));  // significand
  CHECK_FALSE(attn::ref::format_covers(F::float16, F::float32));
}
