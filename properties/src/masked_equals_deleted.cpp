// Lemma 2 (section 32.2.4) read as a statement about O: with -inf at the
// forbidden logits, query i's output is exactly attention over its allowed
// keys only. Each masked row is compared with a case that deletes the
// forbidden keys (and values) and has no mask. Only the parts well shaped in
// both answers, and their finite entries, are compared; a refusal or a wrong
// shape is the owner of answering's, a NaN or Inf oracle_agreement's (one
// fault, one charge: properties/README.md).
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property masked_equals_deleted(Operation op) {
  Property p;
  p.id = "masked_equals_deleted";
  p.kind = PropertyKind::metamorphic;
  p.hint = {"masking a key is not the same as deleting it",
            "With -inf before the softmax, a forbidden key contributes exactly nothing: the "
            "result must equal attention over the allowed keys only.",
            "Lemma 2, section 32.2.4"};
  p.title = "masked attention equals attention over the allowed keys only";
  p.source = "Lemma 2, section 32.2.4";
  p.op = op;
  p.generator = [](const GenConfig& cfg) { return gen_case(cfg, MaskPolicy::masked); };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    const detail::Judged judged = detail::judge_parts(o, c, s, "masked_equals_deleted");
    if (judged.stop()) return judged.failure;
    const detail::Expected e = detail::expected_for(c, s.precision());
    Index compared = 0, rows_run = 0;
    bool well_shaped = false;
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
      const detail::Judged sj = detail::judge_parts(so, sub, s, "masked_equals_deleted");
      if (sj.left) return std::nullopt;
      if (auto f = sj.failure) {
        f->summary = what.str() + ": " + f->summary;
        f->marked_row = i;
        f->answered = sub;  // the fault is the deleted-keys case's
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
      ++rows_run;
      const bool A = judged.parts.A && sj.parts.A;
      const bool O = takes_qkv(c.op) && judged.parts.O && sj.parts.O;
      well_shaped = well_shaped || A || O;
      if (A)
        if (auto f = detail::compare_related("A", o.A, so.A, map, e.A, se.A, e.bound_A, se.bound_A,
                                             &compared))
          return fail(f);
      if (O)
        if (auto f = detail::compare_related("O", o.O, so.O, {{i}, {}}, e.O, se.O, e.bound_O,
                                             se.bound_O, &compared))
          return fail(f);
    }
    // A case with no row to compare (nothing deleted) judged nothing either;
    // when its answer is non-finite, that is oracle_agreement's to charge,
    // so it is left, not counted as judged (an answer of NaN everywhere must
    // not pass by such cases).
    const bool non_finite = (judged.parts.A && !o.A.allFinite()) ||
                            (takes_qkv(c.op) && judged.parts.O && !o.O.allFinite());
    if (rows_run > 0 && compared == 0)
      detail::leave_unjudged(well_shaped, c.op);
    else if (rows_run == 0 && non_finite)
      detail::leave_unjudged(true, c.op);
    return std::nullopt;
  };
  return p;
}

}  // namespace attn::prop
