#include "attn/prop/catalog.hpp"

#include <stdexcept>
#include <string>

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

const char* fully_forbidden_name(FullyForbidden f) {
  switch (f) {
    case FullyForbidden::error: return "error";
    case FullyForbidden::nan: return "nan";
    case FullyForbidden::zeros: return "zeros";
  }
  return "error";
}

std::vector<Property> kernel_properties(FullyForbidden fully_forbidden) {
  std::vector<Property> list = attention_properties();
  for (Property& p : list) {
    if (p.id == "fully_forbidden_refused")
      p = fully_forbidden_row(Operation::attention, fully_forbidden);
    if (p.id == "textbook_example") p = textbook_example(/*within_bound=*/true);
  }
  for (Property p : {shift_invariance(), permutation_equivariance(), masked_equals_deleted(),
                     uniform_when_tied(), scale_off(), shape_mismatch_refused()})
    list.push_back(std::move(p));
  return list;
}

std::vector<Property> kernel_properties_for(Operation op, FullyForbidden fully_forbidden) {
  switch (op) {
    case Operation::attention:
      return kernel_properties(fully_forbidden);
    case Operation::softmax_rows:
    case Operation::masked_softmax: {
      std::vector<Property> list = {row_stochastic(op), exact_zeros(op),
                                    fully_forbidden_row(op, fully_forbidden),
                                    shift_invariance(op), permutation_equivariance(op),
                                    oracle_agreement(op)};
      if (op == Operation::masked_softmax) {
        list.push_back(masked_equals_deleted(op));
        list.push_back(shape_mismatch_refused(op));
      }
      return list;
    }
    case Operation::attention_tiled:
      return {tiled_equals_naive(), oracle_agreement(op),
              fully_forbidden_row(op, fully_forbidden), masked_equals_deleted(op),
              shift_invariance(op), permutation_equivariance(op), scale_off(op),
              shape_mismatch_refused(op)};
    case Operation::multi_head_attention:
      return {oracle_agreement(op), heads_in_order(),
              fully_forbidden_row(op, fully_forbidden)};
    case Operation::attention_backward:
      return backward_properties(fully_forbidden);
    case Operation::batched_attention:
      return {oracle_agreement(op), kv_heads_grouped(), causal_alignment(), scale_honoured(),
              mask_broadcast(), fully_forbidden_row(op, fully_forbidden),
              shapes_refused()};
    default:
      break;
  }
  throw std::invalid_argument(std::string("attnlab check does not take the operation ") +
                              operation_name(op));
}

std::vector<Property> graded_properties_for(Operation op) {
  switch (op) {
    case Operation::softmax_rows:
    case Operation::masked_softmax: {
      std::vector<Property> list = {softmax_textbook_example(op), row_stochastic(op),
                                    exact_zeros(op),           fully_forbidden_refused(op),
                                    shift_invariance(op),      oracle_agreement(op)};
      if (op == Operation::masked_softmax) list.push_back(masked_equals_deleted(op));
      return list;
    }
    case Operation::attention: return attention_properties();
    case Operation::attention_tiled:
      // The library's tiled kernel (section 32.2.4, cost; FlashAttention),
      // graded like an exercise so the bug-injection catalogue can hold its
      // mutants.
      return {tiled_equals_naive(), oracle_agreement(op), fully_forbidden_refused(op),
              masked_equals_deleted(op)};
    case Operation::multi_head_attention: return multi_head_properties();
    case Operation::causal_mask:
      return {causal_mask_matches_definition(), padding_mask_matches_definition()};
    case Operation::attention_backward: return backward_properties();
    default:
      break;
  }
  throw std::invalid_argument(std::string("no exercise is graded on the operation ") +
                              operation_name(op));
}

std::vector<Property> multi_head_properties(std::string expected_error) {
  const Operation op = Operation::multi_head_attention;
  return {oracle_agreement(op), heads_in_order(), fully_forbidden_refused(op, expected_error)};
}

std::vector<Property> backward_properties(FullyForbidden fully_forbidden) {
  return {backward_oracle_agreement(),         backward_exact_zeros(),
          backward_ds_rows_sum_to_zero(),      backward_permutation_equivariance(),
          backward_finite_difference(),        backward_fully_forbidden("", fully_forbidden)};
}

std::vector<Property> library_properties(Operation op) {
  if (op == Operation::attention_backward) {
    std::vector<Property> list = backward_properties();
    list.back() = backward_fully_forbidden("FullyMaskedRowError");
    list.push_back(backward_tiled_equals_naive());
    return list;
  }
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

std::vector<Property> catalogue_properties() {
  std::vector<Property> all;
  auto add = [&](std::vector<Property> list) {
    for (Property& p : list) all.push_back(std::move(p));
  };
  for (const Operation op : {Operation::attention, Operation::softmax_rows, Operation::masked_softmax,
                             Operation::attention_tiled, Operation::attention_backward})
    add(library_properties(op));
  for (const Operation op : {Operation::attention, Operation::softmax_rows, Operation::masked_softmax,
                             Operation::attention_tiled, Operation::multi_head_attention,
                             Operation::attention_backward, Operation::batched_attention})
    for (const FullyForbidden f : {FullyForbidden::error, FullyForbidden::nan, FullyForbidden::zeros})
      add(kernel_properties_for(op, f));
  for (const Operation op : {Operation::softmax_rows, Operation::masked_softmax, Operation::attention,
                             Operation::attention_tiled, Operation::multi_head_attention,
                             Operation::causal_mask, Operation::attention_backward})
    add(graded_properties_for(op));
  return all;
}

}  // namespace attn::prop
