#pragma once
// The per-operation tables of properties/src (the generators, the library's
// answers, the oracle's, the printing, the shapes, the property lists) and
// of misconceptions/src (the diagnosis's battery, its engine, the pipeline's
// head): one row per OperationSpec, in the enumerator's order, each table refused by a
// static_assert when it lacks an operation, and read by the operation's value
// (docs/ARCHITECTURE.md, "How to add", an operation).

#include <cstddef>

#include "attn/prop/operation.hpp"

namespace attn::prop::detail {

/// True when `rows` has one row per OperationSpec (its member `op`), in the
/// enumerator's order: what each table's static_assert asks.
template <typename Row, std::size_t N>
constexpr bool one_row_per_operation(const Row (&rows)[N]) {
  if (N != operation_specs().size()) return false;
  for (std::size_t i = 0; i < N; ++i)
    if (rows[i].op != operation_specs()[i].op) return false;
  return true;
}

/// The row of `op` in a table that passes one_row_per_operation.
template <typename Row, std::size_t N>
constexpr const Row& row_of(const Row (&rows)[N], Operation op) {
  return rows[static_cast<std::size_t>(op)];
}

}  // namespace attn::prop::detail
