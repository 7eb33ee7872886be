// reference/'s float16 and bfloat16 round-to-nearest-even emulation.
#include <catch2/catch.hpp>
#include <cmath>

#include "attn/ref/rounding.hpp"

using attn::ref::round_to_bfloat16;
using attn::ref::round_to_float16;

TEST_CASE("float16 rounding: representable values, ties to even, overflow, subnormals", "[rounding]") {
  CHECK(round_to_float16(1.0f) == 1.0f);
  CHECK(round_to_float16(65504.0f) == 65504.0f);
  CHECK(std::isinf(round_to_float16(65520.0f)));
  CHECK(round_to_float16(65519.0f) == 65504.0f);
  // 1 + 2^-11 is the midpoint between 1 and 1 + 2^-10: ties to even gives 1.
  CHECK(round_to_float16(1.0f + 0x1p-11f) == 1.0f);
  // 1 + 3 * 2^-11 is the midpoint between 1 + 2^-10 and 1 + 2^-9: even is 1 + 2^-9.
  CHECK(round_to_float16(1.0f + 3 * 0x1p-11f) == 1.0f + 0x1p-9f);
  CHECK(round_to_float16(1.0f + 0x1p-11f + 0x1p-20f) == 1.0f + 0x1p-10f);
  CHECK(round_to_float16(0x1p-24f) == 0x1p-24f);  // smallest subnormal
  CHECK(round_to_float16(0x1p-25f) == 0.0f);      // tie to even (0)
  CHECK(round_to_float16(0x1.8p-25f) == 0x1p-24f);
  CHECK(round_to_float16(-2.0f / 3) == -0.66650390625f);
  CHECK(std::isnan(round_to_float16(NAN)));
}

TEST_CASE("bfloat16 rounding: ties to even, overflow, NaN", "[rounding]") {
  CHECK(round_to_bfloat16(1.0f) == 1.0f);
  CHECK(round_to_bfloat16(1.0f + 0x1p-8f) == 1.0f);                 // tie to even
  CHECK(round_to_bfloat16(1.0f + 3 * 0x1p-8f) == 1.0f + 0x1p-6f);   // tie to even (up)
  CHECK(round_to_bfloat16(1.0f + 0x1p-8f + 0x1p-20f) == 1.0f + 0x1p-7f);
  CHECK(std::isinf(round_to_bfloat16(3.4028235e38f)));
  CHECK(round_to_bfloat16(1e20f) == 99727710148492263424.0f);
  CHECK(std::isnan(round_to_bfloat16(NAN)));
}
