// B1 test fixture: includes the interface but defines no
// b1::attention_backward (a misspelt name), so the link fails.
#include "attention_backward.hpp"

namespace b1 {
Gradients attention_backwards(const Matrix& Q, const Matrix& K, const Matrix& V, const Matrix& dO,
                              const std::optional<Mask>& mask, double scale, bool causal);
}  // namespace b1
