#pragma once
// Pieces shared by the batched_attention properties (private to properties/).

#include <optional>
#include <string>
#include <vector>

#include "attn/prop/batched.hpp"
#include "check_util.hpp"

namespace attn::prop::detail {

/// A well-known wrong reading of a batched case, as the case it amounts to:
/// `what` completes "the answer agrees, within the bound, with ...".
struct Misreading {
  std::string what;
  Case as_case;
};

/// The case as a kernel reads it that maps query head h to kv head h % H_kv
/// (np.tile's order, or K[:, h % H_kv]) instead of h / (H / H_kv) (np.repeat's):
/// the same case with H_kv = H and kv head h := the case's kv head h % H_kv.
Case kv_heads_modulo(const Case& c);

/// check_answer for a batched case, and on a failure, for each misreading
/// whose oracle answer exists: when the subject's whole answer agrees with
/// it within the bound, the summary says so (a fact about the answer, not a
/// diagnosis: "; the whole answer agrees, within the bound, with <what>").
/// `property` is the caller's id (a refusal or a wrong shape is left to
/// oracle_agreement, the owner of answering: check_answer).
std::optional<Failure> check_batched(Subject& s, const Case& c,
                                     const std::vector<Misreading>& misreadings,
                                     const std::string& property);

/// A case of the same inputs whose shapes fit (batched_shape_problem
/// nullopt): K and V cut to Q's batch size, one kv head (MQA) when H_kv does
/// not divide H, V cut to K's T_v, K's columns cut or zero-padded to Q's
/// d_k, no mask when it does not broadcast. The valid case a refusal of
/// shapes is held against.
Case fitted_case(const Case& c);

}  // namespace attn::prop::detail
