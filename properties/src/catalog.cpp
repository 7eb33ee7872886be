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

}  // namespace attn::prop
