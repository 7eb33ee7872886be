// The C++ harness's exercise part for C1: the mask's sizes and its alignment
// or key length to c1::causal_mask / c1::padding_mask (grader/PROTOCOL.md).
#include <string>

#include "protocol/json_matrix.hpp"
#include "cpp_harness.hpp"
#include "masks.hpp"

namespace attn::harness {

const ExerciseInfo exercise{"C1", "c1::causal_mask, c1::padding_mask",
                            {"causal_mask", "padding_mask"}};

nlohmann::json answer(const nlohmann::json& request) {
  const auto T_q = request.at("T_q").get<Eigen::Index>();
  const auto T_v = request.at("T_v").get<Eigen::Index>();
  if (request.at("op").get<std::string>() == "causal_mask") {
    const std::string alignment = request.at("alignment").get<std::string>();
    if (alignment != "top_left" && alignment != "bottom_right")
      throw std::runtime_error("unknown alignment " + alignment);
    const c1::Alignment a =
        alignment == "bottom_right" ? c1::Alignment::bottom_right : c1::Alignment::top_left;
    return call_submission([&] {
      return nlohmann::json{{"mask", grader::encode_mask(c1::causal_mask(T_q, T_v, a))}};
    });
  }
  const auto key_length = request.at("key_length").get<Eigen::Index>();
  return call_submission([&] {
    return nlohmann::json{{"mask", grader::encode_mask(c1::padding_mask(T_q, T_v, key_length))}};
  });
}

}  // namespace attn::harness
