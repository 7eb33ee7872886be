#pragma once
// Helpers shared by the fuzz targets: reading structured values from the
// fuzzer's bytes, fixed cases for the reply parser, and the check that text
// kept from a submission is safe to print.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "attn/matrix.hpp"
#include "attn/prop/case.hpp"

namespace attn::fuzz {

/// Consumes the fuzzer's bytes front to back; past the end every read is 0.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  bool flag() { return byte() & 1; }
  /// 0 .. limit - 1.
  Index small(int limit) { return static_cast<Index>(byte() % limit); }
  /// A value of every kind that matters: small integers, huge, tiny, NaN, Inf.
  double value() {
    switch (byte() % 8) {
      case 0: return static_cast<double>(static_cast<int>(byte()) - 128);
      case 1: return std::numeric_limits<double>::infinity();
      case 2: return -std::numeric_limits<double>::infinity();
      case 3: return std::numeric_limits<double>::quiet_NaN();
      case 4: return std::ldexp(1.0, static_cast<int>(byte()) * 8 - 1100);  // 2^-1100 .. 2^940
      case 5: return -std::ldexp(1.0, static_cast<int>(byte()) * 4);
      default: {
        std::uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | byte();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
      }
    }
  }
  template <class T>
  Matrix<T> matrix(Index rows, Index cols) {
    Matrix<T> M(rows, cols);
    for (Index i = 0; i < rows; ++i)
      for (Index j = 0; j < cols; ++j) M(i, j) = static_cast<T>(value());
    return M;
  }
  Mask mask(Index rows, Index cols) {
    Mask M(rows, cols);
    for (Index i = 0; i < rows; ++i)
      for (Index j = 0; j < cols; ++j) M(i, j) = (byte() % 3) == 0;
    return M;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

/// One fixed small case per operation (selector modulo the number of kinds).
inline prop::Case case_for_selector(std::uint8_t selector) {
  prop::Case c;
  const prop::Operation ops[] = {prop::Operation::softmax_rows,   prop::Operation::masked_softmax,
                                 prop::Operation::attention,      prop::Operation::attention_tiled,
                                 prop::Operation::multi_head_attention, prop::Operation::causal_mask,
                                 prop::Operation::padding_mask, prop::Operation::batched_attention};
  c.op = ops[selector % 8];
  c.Q = prop::DMatrix::Ones(2, 3);
  c.K = prop::DMatrix::Ones(2, 3);
  c.V = prop::DMatrix::Ones(2, 2);
  c.S = prop::DMatrix::Ones(2, 2);
  c.mask = Mask::Constant(2, 2, false);
  c.tile_q = c.tile_k = 1;
  c.X = prop::DMatrix::Ones(2, 2);
  c.heads.push_back({prop::DMatrix::Ones(2, 2), prop::DMatrix::Ones(2, 2), prop::DMatrix::Ones(2, 2)});
  c.W_O = prop::DMatrix::Ones(2, 2);
  c.mask_shape.T_q = 2;
  c.mask_shape.T_v = 2;
  c.mask_shape.key_length = 1;
  // batched_attention: Q, K, V above as (1, 1, 2, d) tensors, the mask as (T_q, T_v).
  c.batched.Q = {1, 1, 2, 3};
  c.batched.K = {1, 1, 2, 3};
  c.batched.V = {1, 1, 2, 2};
  c.batched.mask_dims = {2, 2};
  return c;
}

/// Aborts (a finding) unless `s` is at most max_bytes of valid UTF-8 without
/// control characters other than tab and newline.
inline void require_safe_text(const std::string& s, std::size_t max_bytes) {
  if (s.size() > max_bytes) std::abort();
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) std::abort();
      ++i;
      continue;
    }
    const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || i + n > s.size()) std::abort();
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) std::abort();
    i += n;
  }
}

}  // namespace attn::fuzz
