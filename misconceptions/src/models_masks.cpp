// Mask-builder mistakes (C1): causal_alignment, diagonal_forbidden,
// triangle_reversed, padding_off_by_one, padding_on_queries, and the
// inverted polarity of a built mask. Definition (section 32.2.4): causal,
// key j forbidden for query i iff j > i + off, off = T_v - T_q when
// bottom-right aligned, 0 top-left; padding, iff j >= key_length.
#include <stdexcept>

#include "attn/prop/operation_table.hpp"
#include "masks.hpp"

namespace attn::mis::detail {

namespace {

using MaskShape = Case::MaskShape;

/// Key j forbidden for query i in the causal mask as the rule builds it.
bool causal_forbidden(Index i, Index j, const MaskShape& s, const MaskRule& rule) {
  Index off = s.bottom_right ? s.T_v - s.T_q : 0;
  using C = MaskRule::Causal;
  if (rule.causal == C::always_top_left) off = 0;
  if (rule.causal == C::always_bottom_right) off = s.T_v - s.T_q;
  switch (rule.causal) {
    case C::diagonal_forbidden: return j >= i + off;
    case C::triangle_reversed: return j < i + off;
    case C::inverted: return j <= i + off;
    default: return j > i + off;
  }
}

/// Key j forbidden for query i in the padding mask as the rule builds it.
bool padding_forbidden(Index i, Index j, const MaskShape& s, const MaskRule& rule) {
  using P = MaskRule::Padding;
  switch (rule.padding) {
    case P::off_by_one_late: return j > s.key_length;
    case P::off_by_one_early: return j >= s.key_length - 1;
    case P::on_queries: return i >= s.key_length;
    case P::inverted: return j < s.key_length;
    default: return j >= s.key_length;
  }
}

/// A mask builder's entries under a rule (none: the operation builds no mask).
struct MaskBuilderRow {
  Operation op;
  bool (*forbidden)(Index i, Index j, const MaskShape& s, const MaskRule& rule);
};

constexpr MaskBuilderRow kMaskBuilderRows[] = {
    {Operation::softmax_rows, nullptr},
    {Operation::masked_softmax, nullptr},
    {Operation::attention, nullptr},
    {Operation::attention_tiled, nullptr},
    {Operation::multi_head_attention, nullptr},
    {Operation::causal_mask, causal_forbidden},
    {Operation::padding_mask, padding_forbidden},
    {Operation::batched_attention, nullptr},
    {Operation::attention_backward, nullptr},
};
static_assert(attn::prop::detail::one_row_per_operation(kMaskBuilderRows),
              "kMaskBuilderRows: one row per OperationSpec, in the enumerator's order");

}  // namespace

Prediction predict_mask(const Case& c, const MaskRule& rule) {
  const auto forbidden = attn::prop::detail::row_of(kMaskBuilderRows, c.op).forbidden;
  if (!builds_mask(c.op) || !forbidden) throw std::invalid_argument("predict_mask: not a mask builder");
  const auto& s = c.mask_shape;
  Mask M(s.T_q, s.T_v);
  for (Index i = 0; i < s.T_q; ++i)
    for (Index j = 0; j < s.T_v; ++j) M(i, j) = forbidden(i, j, s, rule);
  Prediction p;
  p.has_answer = true;
  p.answer = Outcome::make_result(DMatrix(), DMatrix());
  p.answer.mask = M;
  return p;
}

}  // namespace attn::mis::detail
