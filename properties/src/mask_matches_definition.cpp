// Section 32.2.4: the masks, entry by entry. Causal: key j is forbidden for
// query i when j > i (top-left, the text's rule) or j > i + (T_v - T_q)
// (bottom-right: the last query sees every key, as when decoding with a
// cache of earlier keys; PyTorch's causal_lower_right, FlashAttention 2.1). Padding: keys j >= key_length are forbidden for
// every query. A built mask must equal its definition exactly.
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Mask mask_definition(const Case& c) {
  const auto& m = c.mask_shape;
  Mask M(m.T_q, m.T_v);
  for (Index i = 0; i < m.T_q; ++i)
    for (Index j = 0; j < m.T_v; ++j)
      M(i, j) = c.op == Operation::causal_mask ? j > i + (m.bottom_right ? m.T_v - m.T_q : 0)
                                               : j >= m.key_length;
  return M;
}

namespace {

Property mask_property(Operation op) {
  Property p;
  p.op = op;
  p.source = "section 32.2.4 (masks: true = forbidden)";
  if (op == Operation::causal_mask) {
    p.id = "causal_mask_matches_definition";
    p.hint = {"the causal mask differs from its definition",
              "Key j is forbidden for query i when j > i (top-left) or j > i + (T_v - T_q) "
              "(bottom-right); every other entry is allowed, and true means forbidden.",
              "section 32.2.4"};
    p.title = "the causal mask forbids exactly the keys j > i (top-left) or j > i + T_v - T_q (bottom-right)";
  } else {
    p.id = "padding_mask_matches_definition";
    p.hint = {"the padding mask differs from its definition",
              "Keys j >= key_length are padding: forbidden (true) for every query; the first "
              "key_length keys are allowed.",
              "section 32.2.4"};
    p.title = "the padding mask forbids exactly the keys j >= key_length, for every query";
  }
  p.generator = [](const GenConfig& cfg) { return gen_mask_case(cfg); };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    Failure f;
    f.outcome = o;
    if (o.kind != Outcome::Kind::result) {
      f.summary = o.kind == Outcome::Kind::refusal
                      ? "refused a valid input: " + o.error_type + ": " + o.message
                      : "no answer: " + o.message;
      return f;
    }
    const Mask expected = mask_definition(c);
    if (o.mask.rows() != expected.rows() || o.mask.cols() != expected.cols()) {
      f.summary = "the mask is " + std::to_string(o.mask.rows()) + "x" +
                  std::to_string(o.mask.cols()) + " but must be T_q x T_v = " +
                  std::to_string(expected.rows()) + "x" + std::to_string(expected.cols());
      return f;
    }
    for (Index i = 0; i < expected.rows(); ++i)
      for (Index j = 0; j < expected.cols(); ++j)
        if (o.mask(i, j) != expected(i, j)) {
          std::ostringstream os;
          os << "entry (" << i << ", " << j << ") is " << (o.mask(i, j) ? "forbidden" : "allowed")
             << " but key " << j << " must be " << (expected(i, j) ? "forbidden" : "allowed")
             << " for query " << i;
          f.summary = os.str();
          f.marked_row = i;
          return f;
        }
    return std::nullopt;
  };
  return p;
}

}  // namespace

Property causal_mask_matches_definition() { return mask_property(Operation::causal_mask); }
Property padding_mask_matches_definition() { return mask_property(Operation::padding_mask); }

}  // namespace attn::prop
