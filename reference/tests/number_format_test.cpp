// The table of number formats against the IEEE 754-2019 constants and the
// C++ types' own limits, so a row typed wrong fails here.
#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <limits>

#include "attn/ref/number_format.hpp"

using attn::ref::FormatInfo;
using attn::ref::NumberFormat;

TEST_CASE("number formats: one row per format, its constants from its significand", "[formats]") {
  const auto rows = attn::ref::number_formats();
  REQUIRE(rows.size() == 4);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const FormatInfo& f = rows[k];
    INFO(f.name);
    CHECK(static_cast<std::size_t>(f.format) == k);
    CHECK(&attn::ref::format_info(f.format) == &f);
    CHECK(f.unit_roundoff == std::ldexp(1.0, -f.significand_bits));
    CHECK(attn::ref::parse_format(f.name) == f.format);
    for (const char* alias : f.aliases)
      if (alias) CHECK(attn::ref::parse_format(alias) == f.format);
    // Rounding: 1 + u is a tie (to even: 1), 1 + 3u rounds up to 1 + 4u,
    // the largest finite value stays, twice it overflows.
    CHECK(f.round(1 + f.unit_roundoff) == 1.0);
    CHECK(f.round(1 + 3 * f.unit_roundoff) == 1 + 4 * f.unit_roundoff);
    CHECK(f.round(f.largest_finite) == f.largest_finite);
    CHECK(std::isinf(f.round(2 * f.largest_finite)) == f.has_infinity);
    CHECK(f.round(f.smallest_normal) == f.smallest_normal);
    CHECK(attn::ref::format_covers(f.default_accumulate, f.format));
  }
  CHECK(attn::ref::format_info(NumberFormat::float64).largest_finite == DBL_MAX);
  CHECK(attn::ref::format_info(NumberFormat::float32).largest_finite == double(FLT_MAX));
  CHECK(attn::ref::format_info(NumberFormat::float32).smallest_normal == double(FLT_MIN));
  CHECK(attn::ref::format_info(NumberFormat::float16).largest_finite == 65504.0);
  CHECK(attn::ref::format_info(NumberFormat::float16).smallest_normal == 0x1p-14);
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
