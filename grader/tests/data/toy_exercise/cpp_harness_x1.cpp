// The C++ harness's exercise part for the toy exercise X1: Q, K, V and the
// mask to x1::course_attention (its spec: spec.json).
#include "course_attention.hpp"
#include "cpp_harness_attention.hpp"

namespace attn::harness {

const ExerciseInfo exercise{"X1", "x1::course_attention", {"attention"}, [] {
  return probe_attention_weights<x1::Matrix, x1::Mask>(x1::course_attention);
}};

nlohmann::json answer(const nlohmann::json& request) {
  return answer_attention<x1::Matrix, x1::Mask>(request, x1::course_attention);
}

}  // namespace attn::harness
