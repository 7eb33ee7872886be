// Floating-point mistakes: low_precision (the work is done in a narrower
// type than declared; TOLERANCE.md's bound for the declared type), and
// tiny_positive_exp (a vectorised exp that clamps its argument returns a
// tiny positive number for exp(-inf): Eigen's 5.56e-309 in double,
// 2.94e-39 in float).
#include <limits>

#include "families.hpp"

namespace attn::mis::detail {

void add_numerics_families(std::vector<Family>& out) {
  out.push_back(family(
      "low_precision",
      "The work is done in a narrower type (" +
          ref::format_names("", " or ", [](const ref::FormatInfo& f) { return f.format != NumberFormat::float64; }) +
          ") than the precision the submission declares.",
      "reference/TOLERANCE.md (the bound is for the declared unit roundoff)",
      "the type is fitted; float16 and bfloat16 differ in range (overflow past 65504)",
      kValueOps, [](Operation) {
        std::vector<Model> v;
        // Every format narrower than float64, its significand bits the parameter.
        for (const ref::FormatInfo& f : ref::number_formats()) {
          if (f.format == NumberFormat::float64) continue;
          Knobs k;
          k.narrow = true;
          k.arith = f.format;
          v.push_back(knob_model("low_precision", {{"precision", double(f.significand_bits), f.name}}, k));
        }
        return v;
      }));
  out.push_back(family(
      "tiny_positive_exp",
      "exp(-inf) (and any exp of a very negative argument) comes out as a tiny positive stand-in "
      "instead of 0, so forbidden weights are not exactly 0.",
      "Lemma 2, section 32.2.4 (forbidden weights exactly 0); Eigen's clamped vectorised exp",
      "the stand-in is fitted; finite_fill gives forbidden weights that depend on the logits",
      kMaskedOps, [](Operation) {
        std::vector<Model> v;
        const std::pair<double, const char*> tiny[] = {
            {5.56268464626800e-309, "5.56e-309 (Eigen, double)"},
            {2.93873587705572e-39, "2.94e-39 (Eigen, float)"},
            {std::numeric_limits<double>::min(), "DBL_MIN"},
            {double(std::numeric_limits<float>::min()), "FLT_MIN"},
            {double(std::numeric_limits<float>::denorm_min()), "float denorm_min"},
            {std::numeric_limits<double>::denorm_min(), "double denorm_min"}};
        for (const auto& [t, s] : tiny) {
          Knobs k;
          k.exp_stand_in = t;
          v.push_back(knob_model("tiny_positive_exp", {{"stand_in", t, s}}, k));
        }
        return v;
      }));
}

}  // namespace attn::mis::detail
