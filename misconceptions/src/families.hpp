#pragma once
// Helpers for the family files and their registration (private).

#include <vector>

#include "attn/mis/model.hpp"
#include "pipeline.hpp"

namespace attn::mis::detail {

inline const std::vector<Operation> kValueOps = {
    Operation::softmax_rows, Operation::masked_softmax, Operation::attention,
    Operation::attention_tiled, Operation::multi_head_attention};
inline const std::vector<Operation> kMaskedOps = {Operation::masked_softmax, Operation::attention,
                                                  Operation::attention_tiled,
                                                  Operation::multi_head_attention};
inline const std::vector<Operation> kQkvOps = {Operation::attention, Operation::attention_tiled,
                                               Operation::multi_head_attention};

inline Family family(std::string key, std::string misconception, std::string source,
                     std::string told_apart_by, std::vector<Operation> ops,
                     std::function<std::vector<Model>(Operation)> members) {
  Family f;
  f.key = std::move(key);
  f.misconception = std::move(misconception);
  f.source = std::move(source);
  f.told_apart_by = std::move(told_apart_by);
  f.ops = std::move(ops);
  f.members = std::move(members);
  return f;
}

/// A parameterless family member from knobs.
inline std::function<std::vector<Model>(Operation)> single(std::string key, Knobs k) {
  return [key, k](Operation) { return std::vector<Model>{knob_model(key, {}, k)}; };
}

/// The two members of an underflow-prone mistake (no_max_shift, global_max,
/// max_floor): a row whose exponentials all underflow divides 0 by 0 (NaN),
/// or is guarded to weights 0 (Knobs::zero_sum_guard, llm.c's
/// `expsum == 0 ? 0 : 1 / expsum`). `params` name the member; the guard is
/// added as the parameter "0/0 gives".
inline std::vector<Model> with_and_without_guard(const std::string& key, std::vector<Param> params,
                                                 Knobs k) {
  std::vector<Param> plain = params, guarded = std::move(params);
  plain.push_back({"0/0 gives", 0, "NaN"});
  guarded.push_back({"0/0 gives", 1, "0 (guarded)"});
  std::vector<Model> v = {knob_model(key, plain, k)};
  k.zero_sum_guard = true;
  v.push_back(knob_model(key, guarded, k));
  return v;
}

// One registration function per family file.
void add_masking_families(std::vector<Family>& out);
void add_scale_families(std::vector<Family>& out);
void add_softmax_families(std::vector<Family>& out);
void add_numerics_families(std::vector<Family>& out);
void add_refusal_families(std::vector<Family>& out);
void add_tiled_families(std::vector<Family>& out);
void add_multi_head_families(std::vector<Family>& out);
void add_mask_builder_families(std::vector<Family>& out);

}  // namespace attn::mis::detail
