#pragma once
// Generators of Cases (DESIGN.md, "Properties": the regimes to reach).
//
// Shapes start at 1x1 and grow with RapidCheck's size; every dimension and
// value shrinks towards 1 and 0, so a failure is shown on a small case.
// Each case carries tags naming its regimes; the runner counts them.

#include <functional>

#include <rapidcheck.h>

#include "attn/prop/case.hpp"
#include "attn/prop/property.hpp"

namespace attn::prop {

/// Which masks a generator may produce.
enum class MaskPolicy {
  any,                ///< none, causal, padding or random; every row keeps an allowed key
  masked,             ///< as `any` but never "none" (for Lemma 2's exact zeros)
  fully_forbidden,    ///< at least one row has every key forbidden (refusal properties)
};

/// Cases for cfg.op under the given mask policy.
rc::Gen<Case> gen_case(const GenConfig& cfg, MaskPolicy policy);

/// Attention cases whose K has a different d_k than Q (Lemma 1 refusals).
rc::Gen<Case> gen_dk_mismatch_case(const GenConfig& cfg);

/// Integers in [-max_magnitude, max_magnitude], shrinking towards 0.
rc::Gen<double> integer_values(int max_magnitude);

/// Cases from `base` with Case::params filled by count(c) values of `value`.
rc::Gen<Case> with_params(rc::Gen<Case> base, std::function<std::size_t(const Case&)> count,
                          rc::Gen<double> value);

/// Rounds every value of c to float when the config asks for float inputs.
void round_to_precision(Case& c, const Precision& p);

}  // namespace attn::prop
