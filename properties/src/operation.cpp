#include "attn/prop/operation.hpp"

namespace attn::prop {

std::optional<Operation> operation_named(std::string_view name) {
  for (const OperationSpec& s : operation_specs())
    if (s.name == name) return s.op;
  return std::nullopt;
}

const char* operation_name(Operation op) {
  // Every name in detail::kOperationSpecs is a string literal, so its data is NUL-terminated.
  return operation_spec(op).name.data();
}

}  // namespace attn::prop
