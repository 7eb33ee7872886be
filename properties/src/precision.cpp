// Precision::of (subject.hpp has the contract).
#include <stdexcept>
#include <string>

#include "attn/prop/subject.hpp"

namespace attn::prop {

Precision Precision::of(NumberFormat s, std::optional<NumberFormat> a) {
  const NumberFormat acc = a ? *a : default_accumulate(s);
  if (!ref::format_covers(acc, s))
    throw std::invalid_argument(std::string("precision: accumulation type ") + ref::format_name(acc) +
                                " cannot hold the storage type " + ref::format_name(s) +
                                " (it must be the same type or a wider one)");
  std::string name = ref::format_name(s);
  if (acc != s) name += std::string(" (accumulating in ") + ref::format_name(acc) + ")";
  return {s, acc, name};
}

}  // namespace attn::prop
