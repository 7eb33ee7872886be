// Shift invariance (section 32.2.4, the statement after Lemma 2):
// softmax(S + c_i 1^T) = softmax(S) for any per-row constants c_i. On
// logits it is checked with |c_i| up to 1e3, where an implementation that
// does not subtract the row maximum overflows. On attention it is checked
// through the keys: adding one vector b to every key adds (q_i . b)/sqrt(d_k)
// to row i of S, so A and O must not change.
#include <cmath>
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property shift_invariance(Operation op) {
  Property p;
  p.id = "shift_invariance";
  p.kind = PropertyKind::metamorphic;
  p.hint = {"adding a constant to a row of logits changes the result",
            "softmax(s + c) = softmax(s) for any constant c: adding c to every allowed logit "
            "of a row must leave its weights unchanged. Subtract the maximum over the allowed "
            "keys of each row, and keep every logit as it is (no clipping, no finite floor).",
            "shift invariance, section 32.2.4"};
  p.op = op;
  if (takes_qkv(op)) {
    p.title = "adding one vector to every key leaves A and O unchanged";
    p.source = "shift invariance, section 32.2.4";
    p.generator = [](const GenConfig& cfg) {
      return with_params(gen_case(cfg, MaskPolicy::any),
                         [](const Case& c) { return std::size_t(c.K.cols()); }, integer_values(8));
    };
  } else {
    p.title = "adding a constant c_i (|c_i| <= 1000) to row i of S leaves A unchanged";
    p.source = "shift invariance, section 32.2.4; F2";
    p.generator = [](const GenConfig& cfg) {
      return with_params(gen_case(cfg, MaskPolicy::any),
                         [](const Case& c) { return std::size_t(c.S.rows()); }, integer_values(1000));
    };
  }
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    Case shifted = c;
    std::ostringstream what;
    if (takes_qkv(c.op)) {
      what << "after adding b = [";
      for (Index r = 0; r < c.K.cols(); ++r) {
        for (Index j = 0; j < c.K.rows(); ++j) shifted.K(j, r) += c.params[std::size_t(r)];
        what << (r ? ", " : "") << c.params[std::size_t(r)];
      }
      what << "] to every key";
    } else {
      what << "after adding c = [";
      for (Index i = 0; i < c.S.rows(); ++i) {
        shifted.S.row(i).array() += c.params[std::size_t(i)];  // -inf stays -inf
        what << (i ? ", " : "") << c.params[std::size_t(i)];
      }
      what << "] to the rows of S";
    }
    round_to_precision(shifted, s.precision());
    return detail::check_related(s, c, shifted, {}, {}, what.str());
  };
  return p;
}

}  // namespace attn::prop
