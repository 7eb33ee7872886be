// Building the masks (C1, section 32.2.4). Families: causal_alignment,
// diagonal_forbidden, triangle_reversed, padding_off_by_one,
// padding_on_queries (inverted_mask for built masks is in
// families_masking.cpp).
#include "families.hpp"
#include "masks.hpp"

namespace attn::mis::detail {
namespace {

std::function<std::vector<Model>(Operation)> rule_member(std::string key, MaskRule r,
                                                         std::vector<Param> params = {}) {
  return [key, r, params](Operation) {
    Model m;
    m.key = key;
    m.params = params;
    m.predict = [r](const Case& c, const Precision&) { return predict_mask(c, r); };
    return std::vector<Model>{m};
  };
}

}  // namespace

void add_mask_builder_families(std::vector<Family>& out) {
  const std::vector<Operation> causal = {Operation::causal_mask};
  const std::vector<Operation> padding = {Operation::padding_mask};
  out.push_back(family(
      "causal_alignment",
      "The causal mask ignores the alignment asked for: always top-left (j > i) or always "
      "bottom-right (j > i + T_v - T_q).",
      "Section 32.2.4 (top-left and bottom-right causal masks)", "needs T_q != T_v", causal,
      [](Operation op) {
        MaskRule a, b;
        a.causal = MaskRule::Causal::always_top_left;
        b.causal = MaskRule::Causal::always_bottom_right;
        auto v = rule_member("causal_alignment", a, {{"alignment", 1, "always top-left"}})(op);
        auto w = rule_member("causal_alignment", b, {{"alignment", 2, "always bottom-right"}})(op);
        v.insert(v.end(), w.begin(), w.end());
        return v;
      }));
  MaskRule r;
  r.causal = MaskRule::Causal::diagonal_forbidden;
  out.push_back(family("diagonal_forbidden",
                       "The causal mask forbids j >= i, so a query may not attend to its own "
                       "key (numpy.triu(ones) without k=1).",
                       "Section 32.2.4 (the causal mask allows j <= i)", "triangle_reversed",
                       causal, rule_member("diagonal_forbidden", r)));
  r = MaskRule{};
  r.causal = MaskRule::Causal::triangle_reversed;
  out.push_back(family("triangle_reversed",
                       "The causal mask forbids the past (j < i) instead of the future (j > i).",
                       "Section 32.2.4", "inverted_mask (differs on the diagonal)", causal,
                       rule_member("triangle_reversed", r)));
  out.push_back(family(
      "padding_off_by_one",
      "The padding mask is off by one: the first padding key stays visible (j > key_length) or "
      "the last real key is forbidden (j >= key_length - 1).",
      "Section 32.2.4 (keys j >= key_length are padding)", "padding_on_queries", padding,
      [](Operation op) {
        MaskRule a, b;
        a.padding = MaskRule::Padding::off_by_one_late;
        b.padding = MaskRule::Padding::off_by_one_early;
        auto v = rule_member("padding_off_by_one", a, {{"offset", 1, "+1 (j > key_length)"}})(op);
        auto w = rule_member("padding_off_by_one", b, {{"offset", -1, "-1 (j >= key_length - 1)"}})(op);
        v.insert(v.end(), w.begin(), w.end());
        return v;
      }));
  r = MaskRule{};
  r.padding = MaskRule::Padding::on_queries;
  out.push_back(family("padding_on_queries",
                       "The padding is applied to the query rows i >= key_length instead of the "
                       "key columns.",
                       "Section 32.2.4 (padding forbids keys)", "padding_off_by_one", padding,
                       rule_member("padding_on_queries", r)));
}

}  // namespace attn::mis::detail
