#include "attn/prop/catalog.hpp"

#include <stdexcept>
#include <string>

#include "attn/prop/operation_table.hpp"

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

namespace {

// check's properties of each operation (kernel_properties_for).

std::vector<Property> softmax_kernel_properties(Operation op, FullyForbidden fully_forbidden) {
  std::vector<Property> list = {row_stochastic(op), exact_zeros(op),
                                fully_forbidden_row(op, fully_forbidden),
                                shift_invariance(op), permutation_equivariance(op),
                                oracle_agreement(op)};
  return list;
}

std::vector<Property> masked_softmax_kernel_properties(Operation op, FullyForbidden fully_forbidden) {
  std::vector<Property> list = softmax_kernel_properties(op, fully_forbidden);
  list.push_back(masked_equals_deleted(op));
  list.push_back(shape_mismatch_refused(op));
  return list;
}

std::vector<Property> attention_kernel_properties(Operation, FullyForbidden fully_forbidden) {
  return kernel_properties(fully_forbidden);
}

std::vector<Property> tiled_kernel_properties(Operation op, FullyForbidden fully_forbidden) {
  return {tiled_equals_naive(), oracle_agreement(op),
          fully_forbidden_row(op, fully_forbidden), masked_equals_deleted(op),
          shift_invariance(op), permutation_equivariance(op), scale_off(op),
          shape_mismatch_refused(op)};
}

std::vector<Property> multi_head_kernel_properties(Operation op, FullyForbidden fully_forbidden) {
  return {oracle_agreement(op), heads_in_order(), fully_forbidden_row(op, fully_forbidden)};
}

std::vector<Property> batched_kernel_properties(Operation op, FullyForbidden fully_forbidden) {
  return {oracle_agreement(op), kv_heads_grouped(), causal_alignment(), scale_honoured(),
          mask_broadcast(), fully_forbidden_row(op, fully_forbidden), shapes_refused()};
}

std::vector<Property> backward_kernel_properties(Operation, FullyForbidden fully_forbidden) {
  return backward_properties(fully_forbidden);
}

// An exercise's properties of each operation (graded_properties_for).

std::vector<Property> softmax_graded_properties(Operation op) {
  return {softmax_textbook_example(op), row_stochastic(op),
          exact_zeros(op),           fully_forbidden_refused(op),
          shift_invariance(op),      oracle_agreement(op)};
}

std::vector<Property> masked_softmax_graded_properties(Operation op) {
  std::vector<Property> list = softmax_graded_properties(op);
  list.push_back(masked_equals_deleted(op));
  return list;
}

std::vector<Property> attention_graded_properties(Operation) { return attention_properties(); }

// The library's tiled kernel (section 32.2.4, cost; FlashAttention), graded
// like an exercise so the bug-injection catalogue can hold its mutants.
std::vector<Property> tiled_graded_properties(Operation op) {
  return {tiled_equals_naive(), oracle_agreement(op), fully_forbidden_refused(op),
          masked_equals_deleted(op)};
}

std::vector<Property> multi_head_graded_properties(Operation) { return multi_head_properties(); }

// C1's two builders, graded together on the causal mask's row.
std::vector<Property> mask_graded_properties(Operation) {
  return {causal_mask_matches_definition(), padding_mask_matches_definition()};
}

std::vector<Property> backward_graded_properties(Operation) { return backward_properties(); }

/// An operation's property lists.
struct OperationLists {
  Operation op;
  /// check's list (kernel_properties_for); nullptr: check does not take it.
  std::vector<Property> (*kernel)(Operation op, FullyForbidden fully_forbidden);
  /// An exercise's list (graded_properties_for); nullptr: no exercise is
  /// graded on it.
  std::vector<Property> (*graded)(Operation op);
  /// Whether the library serves it with its own battery
  /// (library_properties), held by catalogue_properties.
  bool library_battery;
};

constexpr OperationLists kOperationLists[] = {
    {Operation::softmax_rows, softmax_kernel_properties, softmax_graded_properties, true},
    {Operation::masked_softmax, masked_softmax_kernel_properties, masked_softmax_graded_properties, true},
    {Operation::attention, attention_kernel_properties, attention_graded_properties, true},
    {Operation::attention_tiled, tiled_kernel_properties, tiled_graded_properties, true},
    {Operation::multi_head_attention, multi_head_kernel_properties, multi_head_graded_properties, false},
    {Operation::causal_mask, nullptr, mask_graded_properties, false},
    {Operation::padding_mask, nullptr, nullptr, false},
    {Operation::batched_attention, batched_kernel_properties, nullptr, false},
    {Operation::attention_backward, backward_kernel_properties, backward_graded_properties, true},
};
static_assert(detail::one_row_per_operation(kOperationLists),
              "kOperationLists: one row per OperationSpec, in the enumerator's order");

}  // namespace

std::vector<Property> kernel_properties_for(Operation op, FullyForbidden fully_forbidden) {
  if (const auto kernel = detail::row_of(kOperationLists, op).kernel) return kernel(op, fully_forbidden);
  throw std::invalid_argument(std::string("attnlab check does not take the operation ") +
                              operation_name(op));
}

std::vector<Property> graded_properties_for(Operation op) {
  if (const auto graded = detail::row_of(kOperationLists, op).graded) return graded(op);
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
  for (const OperationLists& row : kOperationLists) {
    if (row.library_battery) add(library_properties(row.op));
    if (row.kernel)
      for (const FullyForbidden f : {FullyForbidden::error, FullyForbidden::nan, FullyForbidden::zeros})
        add(row.kernel(row.op, f));
    if (row.graded) add(row.graded(row.op));
  }
  return all;
}

}  // namespace attn::prop
