// Round-to-nearest-even to binary16 and bfloat16 from float32 bits
// (rounding.hpp has the contract).
#include "attn/ref/rounding.hpp"

#include <bit>
#include <cmath>

namespace attn::ref {

float round_to_float16(float x) noexcept {
  if (std::isnan(x) || std::isinf(x)) return x;
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t sign = bits & 0x80000000u;
  const float a = std::fabs(x);
  if (a >= 65520.0f) return std::bit_cast<float>(sign | 0x7F800000u);  // beyond the last midpoint
  if (a < 0x1p-14f) {
    // Subnormal binary16: multiples of 2^-24. a * 2^24 is exact in float
    // (a power-of-two scaling of a normal or subnormal float), and rint
    // rounds it to an integer with ties to even (default rounding mode).
    const float q = std::rint(a * 0x1p24f) * 0x1p-24f;
    return std::bit_cast<float>(sign | std::bit_cast<std::uint32_t>(q));
  }
  // Normal binary16: keep 10 of float32's 23 fraction bits. Adding
  // 0xFFF + (the lowest kept bit) then clearing the 13 dropped bits rounds to
  // nearest with ties to even; a carry out of the fraction correctly bumps the
  // exponent.
  std::uint32_t m = bits & 0x7FFFFFFFu;
  m += 0x0FFFu + ((m >> 13) & 1u);
  m &= ~0x1FFFu;
  return std::bit_cast<float>(sign | m);
}

float round_to_bfloat16(float x) noexcept {
  if (std::isnan(x)) return x;
  std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  // Same trick with 16 dropped bits; the largest finite values carry into
  // the Inf pattern 0x7F80, which is the correctly rounded overflow.
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  bits &= 0xFFFF0000u;
  return std::bit_cast<float>(bits);
}

}  // namespace attn::ref
