#include "attn/prop/catalog.hpp"

namespace attn::prop {

std::vector<Property> attention_properties() {
  return {textbook_example(),
          score_shape(),
          dk_mismatch_refused(),
          row_stochastic(Operation::attention),
          exact_zeros(Operation::attention),
          fully_forbidden_refused(Operation::attention),
          oracle_agreement(Operation::attention)};
}

std::vector<Property> kernel_properties() {
  std::vector<Property> list = attention_properties();
  for (Property p : {shift_invariance(), permutation_equivariance(), masked_equals_deleted(),
                     uniform_when_tied(), scale_off(), shape_mismatch_refused()})
    list.push_back(std::move(p));
  return list;
}

std::vector<Property> multi_head_properties(std::string expected_error) {
  const Operation op = Operation::multi_head_attention;
  return {oracle_agreement(op), heads_in_order(), fully_forbidden_refused(op, expected_error)};
}

std::vector<Property> library_properties(Operation op) {
  std::vector<Property> list;
  if (op == Operation::attention) list.push_back(textbook_example());
  if (takes_qkv(op)) {
    list.push_back(score_shape());
    list.push_back(dk_mismatch_refused("ShapeError"));
    list.push_back(scale_off(op));
  }
  if (op == Operation::attention_tiled) {
    list.push_back(tiled_equals_naive());
  } else {
    list.push_back(row_stochastic(op));
    list.push_back(exact_zeros(op));
  }
  list.push_back(fully_forbidden_refused(op, "FullyMaskedRowError"));
  list.push_back(oracle_agreement(op));
  list.push_back(shift_invariance(op));
  list.push_back(permutation_equivariance(op));
  list.push_back(masked_equals_deleted(op));
  if (takes_qkv(op)) list.push_back(uniform_when_tied(op));
  list.push_back(non_finite_refused(op, "NonFiniteInputError"));
  if (op != Operation::softmax_rows) list.push_back(shape_mismatch_refused(op, "ShapeError"));
  return list;
}

}  // namespace attn::prop
