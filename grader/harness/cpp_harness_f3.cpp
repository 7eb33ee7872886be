// The C++ harness's exercise part for F3: Q, K, V and the mask to f3::attention.
#include "attention.hpp"
#include "cpp_harness_attention.hpp"

namespace attn::harness {

const ExerciseInfo exercise{"F3", "f3::attention", {"attention"}, [] {
  return probe_attention_weights<f3::Matrix, f3::Mask>(f3::attention);
}};

nlohmann::json answer(const nlohmann::json& request) {
  return answer_attention<f3::Matrix, f3::Mask>(request, f3::attention);
}

}  // namespace attn::harness
