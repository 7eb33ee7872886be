// Every shape mismatch is refused (Lemma 1, section 32.2.3; docs/ARCHITECTURE.md lib/
// errors): K and V with different numbers of rows (T_v), and a mask that is
// not T_q x T_v and does not broadcast to it (no 1 x T_v mask). (d_k
// mismatches have their own property.)
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property shape_mismatch_refused(Operation op, std::string expected_error) {
  Property p;
  p.id = "shape_mismatch_refused";
  p.kind = PropertyKind::refusal;
  p.hint = {"inputs of inconsistent shapes are not refused",
            "K and V need the same number of rows T_v, and the mask must be T_q x T_v; check "
            "and raise an error.",
            "Lemma 1, section 32.2.3"};
  p.title = "K and V with different T_v, or a mask that is not T_q x T_v, are refused";
  p.source = "Lemma 1, section 32.2.3; docs/ARCHITECTURE.md (lib/ contract)";
  p.op = op;
  p.generator = [](const GenConfig& cfg) {
    // params: which mismatch, and by how much (1..3).
    return with_params(gen_case(cfg, MaskPolicy::any), [](const Case&) { return std::size_t(2); },
                       rc::gen::map(rc::gen::inRange(0, 6), [](int k) { return double(k); }));
  };
  p.check = [expected_error](Subject& s, const Case& c) -> std::optional<Failure> {
    Case bad = c;
    const Index delta = 1 + Index(c.params[1]) % 3;
    const int variant = takes_qkv(c.op) ? int(c.params[0]) % 3 : 2;
    std::ostringstream why;
    if (variant == 0) {
      bad.V = DMatrix::Ones(c.V.rows() + delta, c.V.cols());
      why << "K with " << c.K.rows() << (c.K.rows() == 1 ? " row" : " rows") << " and V with "
          << bad.V.rows();
    } else {
      const Index T_q = detail::T_q(c), T_v = detail::T_v(c);
      // A mask with one row fewer than the logits, unless that leaves one row:
      // a 1 x T_v mask broadcasts to T_q x T_v (NumPy, PyTorch), and a kernel
      // that broadcasts it gives a definite answer; every mask here is one
      // that no broadcasting rule fits to T_q x T_v.
      const bool wider = variant == 1 || T_q <= 2 || int(c.params[1]) % 2 == 0;
      bad.mask = Mask::Constant(wider ? T_q : T_q - 1, wider ? T_v + delta : T_v, false);
      why << "a " << bad.mask->rows() << "x" << bad.mask->cols() << " mask for " << T_q << "x"
          << T_v << " logits";
    }
    return detail::require_specific_refusal(s, bad, s.run(bad), expected_error, why.str(), c);
  };
  return p;
}

}  // namespace attn::prop
