// Lemma 2 (section 32.2.4) read as a statement about O: with -inf at the
// forbidden logits, query i's output is exactly attention over its allowed
// keys only. Each masked row is compared with a case that deletes the
// forbidden keys (and values) and has no mask.
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property masked_equals_deleted(Operation op) {
  Property p;
  p.id = "masked_equals_deleted";
  p.title = "masked attention equals attention over the allowed keys only";
  p.source = "Lemma 2, section 32.2.4";
  p.op = op;
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::masked); };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    if (auto f = detail::require_answer(o, c, s)) return f;
    const detail::Expected e = detail::expected_for(c, s.precision());
    for (Index i = 0; i < detail::T_q(c); ++i) {
      std::vector<Index> allowed;
      for (Index j = 0; j < detail::T_v(c); ++j)
        if (!detail::forbidden(c, i, j)) allowed.push_back(j);
      if (allowed.size() == std::size_t(detail::T_v(c))) continue;  // nothing deleted
      Case sub;
      sub.op = c.op;
      sub.tile_q = c.tile_q;
      sub.tile_k = c.tile_k;
      const Index n = Index(allowed.size());
      if (takes_qkv(c.op)) {
        sub.Q = c.Q.row(i);
        sub.K.resize(n, c.K.cols());
        sub.V.resize(n, c.V.cols());
        for (Index k = 0; k < n; ++k) {
          sub.K.row(k) = c.K.row(allowed[std::size_t(k)]);
          sub.V.row(k) = c.V.row(allowed[std::size_t(k)]);
        }
      } else {
        sub.S.resize(1, n);
        for (Index k = 0; k < n; ++k) sub.S(0, k) = c.S(i, allowed[std::size_t(k)]);
      }
      if (detail::outside_shapes(sub)) continue;  // a shape the subject does not take
      const Outcome so = s.run(sub);
      std::ostringstream what;
      what << "row " << i << " against attention over its " << n << " allowed keys";
      if (auto f = detail::require_answer(so, sub, s)) {
        f->summary = what.str() + ": " + f->summary;
        f->marked_row = i;
        f->answered = sub;  // the refusal or fault is the deleted-keys case's
        return f;
      }
      const detail::Expected se = detail::expected_for(sub, s.precision());
      const detail::EntryMap map{{i}, allowed};
      auto fail = [&](std::optional<Failure> f) {
        f->summary = what.str() + ": " + f->summary;
        f->marked_row = i;
        f->outcome = o;
        return f;
      };
      if (detail::weights_expected(s, c))
        if (auto f = detail::compare_related("A", o.A, so.A, map, e.A, se.A, e.bound_A, se.bound_A))
          return fail(f);
      if (takes_qkv(c.op))
        if (auto f = detail::compare_related("O", o.O, so.O, {{i}, {}}, e.O, se.O, e.bound_O, se.bound_O))
          return fail(f);
    }
    return std::nullopt;
  };
  return p;
}

}  // namespace attn::prop
