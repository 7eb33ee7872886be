// The C++ harness's exercise part for F4: Q, K, V and the mask to
// f4::attention (the corrected masking, with F3's interface).
#include "cpp_harness_attention.hpp"
#include "masked_attention.hpp"

namespace attn::harness {

const ExerciseInfo exercise{"F4", "f4::attention", {"attention"}, [] {
  return probe_attention_weights<f4::Matrix, f4::Mask>(f4::attention);
}};

nlohmann::json answer(const nlohmann::json& request) {
  return answer_attention<f4::Matrix, f4::Mask>(request, f4::attention);
}

}  // namespace attn::harness
