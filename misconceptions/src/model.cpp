// Arithmetic helpers, labels and the definition's model (model.hpp).
#include "attn/mis/model.hpp"

#include <algorithm>

#include "attn/ref/rounding.hpp"
#include "masks.hpp"
#include "pipeline.hpp"

namespace attn::mis {

double unit_roundoff(Arith a) {
  switch (a) {
    case Arith::float64: return 0x1p-53;
    case Arith::float32: return 0x1p-24;
    case Arith::float16: return ref::kFloat16UnitRoundoff;
    case Arith::bfloat16: return ref::kBfloat16UnitRoundoff;
  }
  return 0x1p-53;
}

double smallest_normal(Arith a) {
  switch (a) {
    case Arith::float64: return 0x1p-1022;
    case Arith::float32: return 0x1p-126;
    case Arith::float16: return ref::kFloat16SmallestNormal;
    case Arith::bfloat16: return ref::kBfloat16SmallestNormal;
  }
  return 0x1p-1022;
}

double round_to(Arith a, double x) {
  switch (a) {
    case Arith::float64: return x;
    case Arith::float32: return double(float(x));
    case Arith::float16: return double(ref::round_to_float16(float(x)));
    case Arith::bfloat16: return double(ref::round_to_bfloat16(float(x)));
  }
  return x;
}

Arith arith_of(const Precision& p) { return arith_of(p.accumulate); }

Arith arith_of(ref::NumberFormat f) {
  switch (f) {
    case ref::NumberFormat::float64: return Arith::float64;
    case ref::NumberFormat::float32: return Arith::float32;
    case ref::NumberFormat::float16: return Arith::float16;
    case ref::NumberFormat::bfloat16: return Arith::bfloat16;
  }
  return Arith::float64;
}

const char* arith_name(Arith a) {
  switch (a) {
    case Arith::float64: return "float64";
    case Arith::float32: return "float32";
    case Arith::float16: return "float16";
    case Arith::bfloat16: return "bfloat16";
  }
  return "?";
}

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
