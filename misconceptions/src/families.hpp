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
