// Arithmetic helpers, labels and the definition's model (model.hpp).
#include "attn/mis/model.hpp"

#include <algorithm>

#include "masks.hpp"
#include "pipeline.hpp"

namespace attn::mis {

std::string Model::label() const {
  std::string s = key;
  if (!params.empty()) {
    s += "(";
    for (std::size_t i = 0; i < params.size(); ++i)
      s += (i ? ", " : "") + params[i].said("=");
    s += ")";
  }
  return s;
}

bool Family::applies_to(Operation op) const {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

Model correct_model() {
  detail::Knobs k;
  k.full_row = detail::FullRow::refuse;
  k.refuse_dk_mismatch = true;
  k.refuse_non_finite = true;
  Model m;
  m.key = "correct";
  m.predict = [k](const Case& c, const Precision& p) {
    if (builds_mask(c.op)) return detail::predict_mask(c, detail::MaskRule{});
    return detail::predict(c, k, p);
  };
  return m;
}

}  // namespace attn::mis
