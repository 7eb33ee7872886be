// libFuzzer target: the library's input validation (lib/). Shapes, values
// (NaN, Inf, huge, subnormal) and masks come from the input; every call
// returns or throws one of the documented errors (std::invalid_argument or
// std::domain_error: ShapeError, FullyMaskedRowError, NonFiniteInputError),
// never anything else, never a crash. A returned answer has the documented
// shapes and no NaN.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>

#include "attn/attn.hpp"
#include "fuzz_support.hpp"

namespace {

template <class T>
void exercise_library(attn::fuzz::Bytes& in) {
  using M = attn::Matrix<T>;
  const attn::Index T_q = in.small(6), T_v = in.small(6), d_k = in.small(5), d_v = in.small(5);
  // Sometimes mismatched shapes on purpose.
  const attn::Index d_k2 = in.flag() ? d_k : in.small(5);
  const attn::Index T_v2 = in.flag() ? T_v : in.small(6);
  M Q = in.matrix<T>(T_q, d_k), K = in.matrix<T>(T_v, d_k2), V = in.matrix<T>(T_v2, d_v);
  std::optional<attn::Mask> mask;
  if (in.flag()) mask = in.mask(in.flag() ? T_q : in.small(6), T_v);
  try {
    const auto r = attn::attention<T>(Q, K, V, mask);
    if (r.O.rows() != T_q || r.O.cols() != d_v || r.A.rows() != T_q || r.A.cols() != T_v) std::abort();
    if (r.A.hasNaN()) std::abort();
  } catch (const std::invalid_argument&) {
  } catch (const std::domain_error&) {
  }
  try {
    attn::TileSizes tiles;
    tiles.query = in.small(4);
    tiles.key = in.small(4);
    const auto r = attn::attention_tiled<T>(Q, K, V, mask, tiles);
    if (r.O.rows() != T_q || r.O.cols() != d_v || r.logsumexp.size() != T_q) std::abort();
  } catch (const std::invalid_argument&) {
  } catch (const std::domain_error&) {
  }
  try {
    const M S = in.matrix<T>(in.small(5), in.small(5));
    std::optional<attn::Mask> m2;
    if (in.flag()) m2 = in.mask(S.rows(), in.flag() ? S.cols() : in.small(5));
    const attn::Mask all_allowed = attn::Mask::Constant(S.rows(), S.cols(), false);
    (void)attn::masked_softmax<T>(S, m2 ? *m2 : all_allowed);
  } catch (const std::invalid_argument&) {
  } catch (const std::domain_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  attn::fuzz::Bytes in(data, size);
  if (in.flag())
    exercise_library<double>(in);
  else
    exercise_library<float>(in);
  return 0;
}
