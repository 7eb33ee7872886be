// Lemma 1 (section 32.2.3) needs Q and K to share d_k; 32.2.9 (F3) asks the
// function to watch for it. A mismatch must be refused, not answered.
#include <algorithm>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property dk_mismatch_refused(std::string expected_error) {
  Property p;
  p.id = "dk_mismatch_refused";
  p.kind = PropertyKind::refusal;
  p.hint = {"Q and K with different d_k are not refused",
            "Q K^T is defined only when Q and K have the same number of columns d_k; check it "
            "and raise an error instead of letting broadcasting or a partial product run.",
            "Lemma 1, section 32.2.3"};
  p.title = "Q and K with different d_k are refused with an error";
  p.source = "Lemma 1, section 32.2.3; F3 solution, 32.2.9";
  p.op = Operation::attention;
  p.generator = [](const GenConfig& cfg) { return gen_dk_mismatch_case(cfg); };
  p.check = [expected_error](Subject& s, const Case& c) -> std::optional<Failure> {
    // The valid case it is made from: K cut or zero-padded to Q's d_k.
    Case valid = c;
    valid.K = DMatrix::Zero(c.K.rows(), c.Q.cols());
    const Index shared = std::min(c.K.cols(), c.Q.cols());
    valid.K.leftCols(shared) = c.K.leftCols(shared);
    return detail::require_specific_refusal(
        s, c, s.run(c), expected_error,
        "Q " + std::to_string(c.Q.rows()) + "x" + std::to_string(c.Q.cols()) + " with K " +
            std::to_string(c.K.rows()) + "x" + std::to_string(c.K.cols()) + " (d_k differs)",
        valid);
  };
  return p;
}

}  // namespace attn::prop
