// Mask-builder mistakes (C1): causal_alignment, diagonal_forbidden,
// triangle_reversed, padding_off_by_one, padding_on_queries, and the
// inverted polarity of a built mask. Definition (section 32.2.4): causal,
// key j forbidden for query i iff j > i + off, off = T_v - T_q when
// bottom-right aligned, 0 top-left; padding, iff j >= key_length.
#include <stdexcept>

#include "masks.hpp"

namespace attn::mis::detail {

Prediction predict_mask(const Case& c, const MaskRule& rule) {
  if (!builds_mask(c.op)) throw std::invalid_argument("predict_mask: not a mask builder");
  const auto& s = c.mask_shape;
  Mask M(s.T_q, s.T_v);
  for (Index i = 0; i < s.T_q; ++i)
    for (Index j = 0; j < s.T_v; ++j) {
      bool f = false;
      if (c.op == Operation::causal_mask) {
        Index off = s.bottom_right ? s.T_v - s.T_q : 0;
        using C = MaskRule::Causal;
        if (rule.causal == C::always_top_left) off = 0;
        if (rule.causal == C::always_bottom_right) off = s.T_v - s.T_q;
        switch (rule.causal) {
          case C::diagonal_forbidden: f = j >= i + off; break;
          case C::triangle_reversed: f = j < i + off; break;
          case C::inverted: f = j <= i + off; break;
          default: f = j > i + off; break;
        }
      } else {
        using P = MaskRule::Padding;
        switch (rule.padding) {
          case P::off_by_one_late: f = j > s.key_length; break;
          case P::off_by_one_early: f = j >= s.key_length - 1; break;
          case P::on_queries: f = i >= s.key_length; break;
          case P::inverted: f = j < s.key_length; break;
          default: f = j >= s.key_length; break;
        }
      }
      M(i, j) = f;
    }
  Prediction p;
  p.has_answer = true;
  p.answer = Outcome::make_result(DMatrix(), DMatrix());
  p.answer.mask = M;
  return p;
}

}  // namespace attn::mis::detail
