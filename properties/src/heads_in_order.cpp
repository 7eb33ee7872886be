// Section 32.2.5: the heads are concatenated in order, O = [O_1, ..., O_h] W_O,
// head i in columns [i d_v, (i+1) d_v). With W_O the identity the answer is
// the concatenation itself, so every column block is held against its own
// head's exact output, and a block that holds another head's output is named.
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

namespace {

/// The head whose exact output block block `i` of `O` matches within the
/// bound, or -1. Blocks are d_v columns wide.
Index matching_head(const DMatrix& O, Index i, Index d_v, const detail::Expected& e) {
  const Index h = O.cols() / d_v;
  for (Index j = 0; j < h; ++j) {
    bool all = true;
    for (Index r = 0; r < O.rows() && all; ++r)
      for (Index l = 0; l < d_v && all; ++l) {
        const double err =
            static_cast<double>(abs(ref::Real(O(r, i * d_v + l)) - e.O(r, j * d_v + l)));
        all = err <= e.bound_O(r, j * d_v + l);
      }
    if (all) return j;
  }
  return -1;
}

}  // namespace

Property heads_in_order() {
  Property p;
  p.id = "heads_in_order";
  p.hint = {"the heads are not concatenated in order",
            "With W_O = I the answer is the concatenation [O_1, ..., O_h] itself: head i's "
            "output, attention(X W_Q^i, X W_K^i, X W_V^i, mask), fills columns i d_v to (i+1) "
            "d_v - 1.",
            "section 32.2.5"};
  p.title = "with W_O = I, column block i of O is head i's own attention output";
  p.source = "section 32.2.5: O = [O_1, ..., O_h] W_O";
  p.op = Operation::multi_head_attention;
  p.generator = [](const GenConfig& cfg) {
    return gen_multi_head_case(cfg, MaskPolicy::any, /*identity_W_O=*/true);
  };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    const detail::Judged judged = detail::judge_parts(o, c, s, "heads_in_order");
    if (judged.stop()) return judged.failure;
    const detail::Expected e = detail::expected_for(c, s.precision());
    auto f = detail::compare_with_bound("O", o.O, e.O, e.bound_O);
    if (!f) return std::nullopt;
    const Index d_v = c.heads.front().W_V.cols();
    const Index block = f->worst ? f->worst->col / d_v : 0;
    std::ostringstream os;
    os << f->summary << "; with W_O = I, columns " << block * d_v << " to " << (block + 1) * d_v - 1
       << " must be head " << block << "'s output";
    const Index other = matching_head(o.O, block, d_v, e);
    if (other >= 0 && other != block) os << ", but they hold head " << other << "'s";
    f->summary = os.str();
    return detail::with_outcome(f, o);
  };
  return p;
}

}  // namespace attn::prop
