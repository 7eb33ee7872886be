#pragma once
// Generators of Cases (docs/ARCHITECTURE.md, "properties/": the regimes to reach).
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

/// Long rows start at this T_v; a ShapeSpace whose max_seq is below it has none.
inline constexpr Index kLongRowsFrom = 64;
/// One case in this many is a long-rows case (when max_seq allows them).
inline constexpr int kLongRowsOneIn = 16;
/// At most this many numbers in K and V together in a long-rows case (about
/// 5 MB of the protocol's JSON): the larger head dim steps down first, then T_v.
inline constexpr Index kLongEntries = Index(1) << 18;

/// attention_backward's long cases: T_v (and in half of them T_q) from
/// kBackwardLongFrom to kBackwardLongTo (within max_seq), one case in
/// kBackwardLongOneIn: rows spanning several tiles of 32, 64 or 128, small
/// enough for the 50-digit backward oracle (it has no second tier).
inline constexpr Index kBackwardLongFrom = 65;
inline constexpr Index kBackwardLongTo = 300;
inline constexpr int kBackwardLongOneIn = 8;

/// Cases for cfg.op under the given mask policy, inside cfg.shapes. For
/// attention, attention_tiled, masked_softmax and softmax_rows: small cases
/// (T_q, T_v up to 16, one in ten up to 32; d_k up to 8 or 16), and, when
/// cfg.shapes.max_seq >= kLongRowsFrom, one in kLongRowsOneIn a long-rows
/// case (T_q up to 4, T_v from 64 to max_seq, head dims 8 to 256, tiles of
/// 16 to 128 keys) where accumulation errors grow with the length; its
/// values come from a seed, so only its sizes shrink.
rc::Gen<Case> gen_case(const GenConfig& cfg, MaskPolicy policy);

/// Multi-head self-attention cases (section 32.2.5): X, h heads sharing d_k
/// and d_v, W_O, and a T x T mask under the policy. With identity_W_O, W_O is
/// the identity of size h d_v, so the answer is the concatenation itself.
/// gen_case(cfg, policy) for cfg.op == multi_head_attention is this with a
/// drawn W_O.
rc::Gen<Case> gen_multi_head_case(const GenConfig& cfg, MaskPolicy policy, bool identity_W_O);

/// What a batched_attention generator aims at. Shapes: N from 1 to 3, H_kv
/// from 1 to 3, H = H_kv times a group size from 1 to 3 (H_kv = 1 is
/// multi-query, H_kv = H multi-head attention), T_q and T_v from 1 to 6
/// (drawn apart), d_k and d_v from 1 to 4; values small integers, reals on
/// the 2^-18 grid or large logits; every size shrinks towards 1.
enum class BatchedFocus {
  any,               ///< every regime below but fully_forbidden; every row keeps an allowed key
  grouped_heads,     ///< 2 <= H_kv < H (so h / (H / H_kv) and h % H_kv differ), no mask
  causal_alignment,  ///< causal, T_q != T_v: top-left either way, bottom-right with T_q < T_v
  custom_scale,      ///< an explicit scale (dyadic, exact in every type), never 1/sqrt(d_k)
  broadcast_mask,    ///< a 2-D or 4-D mask with some dimension 1, no causal mask
  fully_forbidden,   ///< some query row of some head has every key forbidden: bottom-right
                     ///< causal with T_q > T_v (its first T_q - T_v rows), or a mask row
};

/// batched_attention cases (Operation::batched_attention, batched.hpp) for the focus.
rc::Gen<Case> gen_batched_case(const GenConfig& cfg, BatchedFocus focus);

/// batched_attention cases whose shapes do not fit (batched_shape_problem is
/// set): H_kv not dividing H, d_k of K not Q's, a mask that does not
/// broadcast, K and V of another batch size, V with another T_v than K. The
/// rest of the case is valid.
rc::Gen<Case> gen_batched_shape_mismatch_case(const GenConfig& cfg);

/// Mask-building cases for cfg.op (causal_mask or padding_mask): T_q and T_v
/// from 2 to 12 (shrinking towards 2; one case in ten from 1), either
/// alignment, key_length from 0 to T_v.
rc::Gen<Case> gen_mask_case(const GenConfig& cfg);

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
