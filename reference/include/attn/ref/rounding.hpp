#pragma once
// Round-to-nearest-even emulation of the 16-bit floating-point formats, from
// the bits of a float32 (IEEE 754-2019, section 4.3.1 roundTiesToEven;
// formats: binary16 = 1 sign, 5 exponent, 10 fraction bits; bfloat16 = the
// top 16 bits of a binary32: 1 sign, 8 exponent, 7 fraction bits).
//
// The result is returned as a float that is exactly representable in the
// narrow format, so arithmetic "in float16" is emulated as: compute each
// operation in float32 (or double) on narrow operands, then round the result
// with these functions. For +, -, *, / and sqrt this double rounding gives the
// correctly rounded narrow result, because float32 carries at least
// 2p + 2 significand bits for both narrow formats (p = 11 and p = 8;
// Figueroa, "When is double rounding innocuous?", SIGNUM 1995). For exp and
// log the result is within one narrow ulp, which is all an exp claims anyway.
//
// Used by the table of formats (number_format.cpp, its rounding functions);
// everything else rounds through that table (round_to_format).

#include <cstdint>

namespace attn::ref {

/// x rounded to the nearest IEEE binary16 value, ties to even, returned as float.
/// Overflow: |x| >= 65520 (the midpoint above the largest finite 65504) gives
/// +-Inf. Values below 2^-14 round to the subnormal grid (spacing 2^-24);
/// below 2^-25 they round to a signed zero. NaN stays NaN, Inf stays Inf.
/// Never throws.
float round_to_float16(float x) noexcept;

/// x rounded to the nearest bfloat16 value (the float32 bit pattern with its
/// low 16 bits rounded away), ties to even, returned as float. Overflow beyond
/// the largest finite bfloat16 (about 3.39e38) gives +-Inf; subnormals keep
/// 7 fraction bits; NaN stays a (quiet) NaN. Never throws.
float round_to_bfloat16(float x) noexcept;

}  // namespace attn::ref
