#pragma once
#include <optional>

#include "attention.hpp"

namespace lucia {
// Row softmax over the allowed entries; throws std::domain_error for a row with none.
f3::Matrix masked_row_softmax(const f3::Matrix& S, const std::optional<f3::Mask>& mask);
}
