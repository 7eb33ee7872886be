#pragma once
// Lists in messages, as English writes them: "F2", "F2 and F3",
// "F1, F2 and F3" (or "... or F3"). One joiner for every message that
// lists exercise ids, entry functions, paths or names.

#include <string>
#include <string_view>
#include <vector>

namespace attn::grader {

/// `items` joined by ", ", with `last` (" and ", " or ") before the final
/// one; "" for none.
inline std::string listed(const std::vector<std::string>& items, std::string_view last = " and ") {
  std::string out;
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (k > 0) out += k + 1 == items.size() ? last : std::string_view(", ");
    out += items[k];
  }
  return out;
}

}  // namespace attn::grader
