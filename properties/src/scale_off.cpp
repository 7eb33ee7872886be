// Section 14.3's experiment "switch the scaling off", read as an identity:
// softmax(Q K^T) V, unscaled, equals scaled attention with Q multiplied by
// sqrt(d_k). With d_k a perfect square (1, 4, 9, 16) the product is exact.
// The expected values come from the unscaled definition in 50 digits.
#include <cmath>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property scale_off(Operation op) {
  Property p;
  p.id = "scale_off";
  p.kind = PropertyKind::metamorphic;
  p.hint = {"the 1/sqrt(d_k) scale is not applied exactly once",
            "The scores are Q K^T divided by sqrt(d_k), once.",
            "Lemma 1, section 32.2.3"};
  p.title = "attention of (Q sqrt(d_k), K, V) equals the unscaled softmax(Q K^T) V";
  p.source = "section 14.3 (scaling switched off); Lemma 1, section 32.2.3";
  p.op = op;
  p.generator = [](const GenConfig& cfg) {
    // params[0] = sqrt(d_k) in {1, 2, 3, 4}; Q and K are widened to d_k = root^2
    // columns by repeating their columns, and Q is then multiplied by root.
    // With declared head dims, the roots of those that are squares (64: 8).
    std::vector<double> roots = {1.0, 2.0, 3.0, 4.0};
    if (!cfg.shapes.head_dims.empty()) {
      roots.clear();
      for (Index d : cfg.shapes.head_dims)
        for (Index r = 1; r * r <= d; ++r)
          if (r * r == d) roots.push_back(double(r));
      if (roots.empty()) roots.push_back(1.0);  // d_k = 1: outside, so not sent (runner.cpp)
    }
    return rc::gen::map(
        with_params(gen_case(cfg, MaskPolicy::any), [](const Case&) { return std::size_t(1); },
                    rc::gen::elementOf(roots)),
        [cfg](Case c) {
          const Index root = Index(c.params[0]), d_k = root * root, d_old = c.Q.cols();
          DMatrix Q(c.Q.rows(), d_k), K(c.K.rows(), d_k);
          for (Index r = 0; r < d_k; ++r) {
            Q.col(r) = c.Q.col(r % d_old);
            K.col(r) = c.K.col(r % d_old);
          }
          // Q sqrt(d_k) must stay finite in the storage type (float16 stops at
          // 65504): halve Q (exactly) until it does.
          while (Q.size() && Q.cwiseAbs().maxCoeff() * double(root) > cfg.precision.largest_finite() / 2)
            Q *= 0.5;
          c.Q = Q;
          c.K = K;
          c.tags.push_back("scale off: d_k = " + std::to_string(d_k));
          round_to_precision(c, cfg.precision);
          return c;
        });
  };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const double root = c.params[0];
    Case scaled = c;
    scaled.Q *= root;
    round_to_precision(scaled, s.precision());
    const Outcome o = s.run(scaled);
    const detail::Judged judged = detail::judge_parts(o, scaled, s, "scale_off");
    if (judged.stop()) return judged.failure;
    // The unscaled definition: S_ij = sum_r Q_ir K_jr, no division, with Q the
    // scaled Q sent divided by sqrt(d_k) exactly (c.Q itself unless rounding
    // the scaled Q to a 16-bit storage type changed it).
    ref::RealMatrix S(c.Q.rows(), c.K.rows());
    for (Index i = 0; i < c.Q.rows(); ++i)
      for (Index j = 0; j < c.K.rows(); ++j)
        S(i, j) = detail::exact_sum(c.Q.cols(), [&](Index r) {
          return ref::Real(scaled.Q(i, r)) / ref::Real(root) * ref::Real(c.K(j, r));
        });
    ref::BoolMatrix allowed = ref::BoolMatrix::Constant(c.Q.rows(), c.K.rows(), true);
    if (c.mask) allowed = c.mask->unaryExpr([](bool m) { return !m; });
    const ref::RealMatrix A = ref::exact_softmax(S, allowed);
    ref::RealMatrix O(c.Q.rows(), c.V.cols());
    for (Index i = 0; i < c.Q.rows(); ++i)
      for (Index l = 0; l < c.V.cols(); ++l)
        O(i, l) = detail::exact_sum(c.K.rows(), [&](Index j) { return A(i, j) * ref::Real(c.V(j, l)); });
    const detail::Expected e = detail::expected_for(scaled, s.precision());
    auto fail = [&](std::optional<Failure> f) {
      f->summary = "with Q scaled by sqrt(d_k) = " + std::to_string(int(root)) +
                   ", against the unscaled softmax(Q K^T) V: " + f->summary;
      return detail::with_outcome(f, o);
    };
    if (judged.parts.A)
      if (auto f = detail::compare_with_bound("A", o.A, A, e.bound_A)) return fail(f);
    if (judged.parts.O)
      if (auto f = detail::compare_with_bound("O", o.O, O, e.bound_O)) return fail(f);
    return std::nullopt;
  };
  return p;
}

}  // namespace attn::prop
