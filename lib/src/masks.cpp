
#include <string>

#include "attn/errors.hpp"
#include "core.hpp"

namespace attn::core {

namespace {
void require_sizes(Index T_q, Index T_v, const char* where) {
  if (T_q < 0 || T_v < 0)
    throw ShapeError(std::string(where) + ": negative size T_q x T_v = " + shape_text(T_q, T_v));
}
}  // namespace

Mask causal_mask(Index T_q, Index T_v, CausalAlignment alignment) {
  require_sizes(T_q, T_v, "causal_mask");
  const Index offset = alignment == CausalAlignment::top_left ? 0 : T_v - T_q;
  Mask M(T_q, T_v);
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) M(i, j) = j > i + offset;
  return M;
}

Mask padding_mask(Index T_q, Index T_v, Index key_length) {
  require_sizes(T_q, T_v, "padding_mask");
  if (key_length < 0 || key_length > T_v)
    throw ShapeError("padding_mask: key_length = " + std::to_string(key_length) +
                     " is outside [0, T_v = " + std::to_string(T_v) + "]");
  Mask M(T_q, T_v);
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) M(i, j) = j >= key_length;
  return M;
}

Mask combine_masks(const Mask& a, const Mask& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    throw ShapeError("combine_masks: the masks are " + shape_text(a.rows(), a.cols()) + " and " +
                     shape_text(b.rows(), b.cols()) + "; both need the shape T_q x T_v");
  Mask M(a.rows(), a.cols());
  for (Index i = 0; i < a.rows(); ++i)
    for (Index j = 0; j < a.cols(); ++j) M(i, j) = a(i, j) || b(i, j);
  return M;
}

}  // namespace attn::core
