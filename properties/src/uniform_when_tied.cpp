// When every allowed logit of a row is equal, the weights are uniform over
// the allowed keys and O is the mean of their values: zero Q (section 14.3:
// "with zero Q all scores are 0") and constant Q = K (every q_i . k_j equal).
// The expected values are computed here from that statement, not taken from
// the oracle; the oracle supplies only the error bound.
#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property uniform_when_tied(Operation op) {
  Property p;
  p.id = "uniform_when_tied";
  p.hint = {"equal logits do not give uniform weights",
            "When all allowed logits of a row are equal, every allowed key gets the same "
            "weight and O is the mean of the allowed V rows.",
            "sections 14.3 and 32.2.2"};
  p.title = "zero Q, or constant Q = K, gives uniform weights and the mean of the allowed values";
  p.source = "section 14.3 (zero Q gives equal scores); Definition, section 32.2.2";
  p.op = op;
  p.generator = [](const GenConfig& cfg) {
    return rc::gen::map(
        with_params(gen_case(cfg, MaskPolicy::any), [](const Case&) { return std::size_t(1); },
                    rc::gen::element(0.0, 1.0)),
        [](Case c) {
          if (c.params[0] == 0.0) {
            c.Q.setZero();
            c.tags.push_back("tied: zero Q");
          } else {
            // Every row of Q and K is the first row of K: S_ij = |k|^2 / sqrt(d_k).
            const DMatrix k = c.K.row(0);
            for (Index i = 0; i < c.Q.rows(); ++i) c.Q.row(i) = k;
            for (Index j = 0; j < c.K.rows(); ++j) c.K.row(j) = k;
            c.tags.push_back("tied: constant Q = K");
          }
          return c;
        });
  };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Outcome o = s.run(c);
    const detail::Judged judged = detail::judge_parts(o, c, s, "uniform_when_tied");
    if (judged.stop()) return judged.failure;
    const detail::Expected e = detail::expected_for(c, s.precision());
    ref::RealMatrix A(c.Q.rows(), c.K.rows()), O(c.Q.rows(), c.V.cols());
    for (Index i = 0; i < c.Q.rows(); ++i) {
      int n = 0;
      for (Index j = 0; j < c.K.rows(); ++j) n += !(c.mask && (*c.mask)(i, j));
      for (Index j = 0; j < c.K.rows(); ++j)
        A(i, j) = (c.mask && (*c.mask)(i, j)) ? ref::Real(0) : ref::Real(1) / n;
      for (Index l = 0; l < c.V.cols(); ++l)
        O(i, l) = detail::exact_sum(c.K.rows(), [&](Index j) {
                    return (c.mask && (*c.mask)(i, j)) ? ref::Real(0) : ref::Real(c.V(j, l));
                  }) / n;
    }
    if (judged.parts.A)
      if (auto f = detail::compare_with_bound("A", o.A, A, e.bound_A)) {
        f->summary = "weights should be uniform over the allowed keys: " + f->summary;
        return detail::with_outcome(f, o);
      }
    if (!judged.parts.O) return std::nullopt;
    if (auto f = detail::compare_with_bound("O", o.O, O, e.bound_O)) {
      f->summary = "O should be the mean of the allowed values: " + f->summary;
      return detail::with_outcome(f, o);
    }
    return std::nullopt;
  };
  return p;
}

}  // namespace attn::prop
