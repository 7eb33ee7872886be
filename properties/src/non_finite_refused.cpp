// The library's input contract (docs/ARCHITECTURE.md, lib/ contract): NaN or Inf in Q, K
// or V (or NaN/+Inf in the logits S; -Inf there means "forbidden") is
// refused, naming the input, rather than propagated into A and O.
// The text's lab function does not promise this, so the exercises do not
// grade it; the library and strict subjects do.
#include <cmath>
#include <limits>
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property non_finite_refused(Operation op, std::string expected_error) {
  Property p;
  p.id = "non_finite_refused";
  p.kind = PropertyKind::refusal;
  p.hint = {"NaN or Inf inputs are not refused",
            "Check Q, K and V (or S) for NaN and Inf and raise an error naming the matrix and "
            "the entry.",
            "docs/ARCHITECTURE.md, lib/ contract"};
  p.title = "NaN or Inf in any input is refused with an error";
  p.source = "docs/ARCHITECTURE.md (lib/ contract); section 32.2.4 (-inf only as a mask)";
  p.op = op;
  p.generator = [](const GenConfig& cfg) {
    // params: which matrix, which entry, which value (NaN, +Inf, -Inf).
    return with_params(gen_case(cfg, MaskPolicy::any), [](const Case&) { return std::size_t(3); },
                       rc::gen::map(rc::gen::inRange(0, 1000), [](int k) { return double(k); }));
  };
  p.check = [expected_error](Subject& s, const Case& c) -> std::optional<Failure> {
    Case bad = c;
    DMatrix* targets[] = {&bad.Q, &bad.K, &bad.V};
    const char* names[] = {"Q", "K", "V"};
    const int which = takes_qkv(c.op) ? int(c.params[0]) % 3 : 0;
    DMatrix& M = takes_qkv(c.op) ? *targets[which] : bad.S;
    const char* name = takes_qkv(c.op) ? names[which] : "S";
    const Index k = Index(c.params[1]) % M.size();
    // Logits may hold -Inf legitimately (a forbidden entry): only NaN and +Inf there.
    const int kinds = takes_qkv(c.op) ? 3 : 2;
    const double values[] = {std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity()};
    const double value = values[int(c.params[2]) % kinds];
    M(k / M.cols(), k % M.cols()) = value;
    // The rule for logits: a forbidden logit is never read, so the entry is
    // made allowed (its row keeps at least this allowed key).
    if (!takes_qkv(c.op) && bad.mask) (*bad.mask)(k / M.cols(), k % M.cols()) = false;
    const Outcome o = s.run(bad);
    std::ostringstream why;
    why << name << "(" << k / M.cols() << ", " << k % M.cols() << ") = " << value;
    auto f = detail::require_specific_refusal(s, bad, o, expected_error, why.str(), c);
    if (f && !f->answered) f->marked_row = k / M.cols();  // the faulty input, not refused
    return f;
  };
  return p;
}

}  // namespace attn::prop
