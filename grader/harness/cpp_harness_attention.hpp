#pragma once
// The C++ harness's answer for the attention exercises (F3, F4): decodes
// Q, K, V and the optional mask, calls `attention` (f3::attention or
// f4::attention) and encodes O and A.

#include <optional>

#include "attn/grader/json_matrix.hpp"
#include "cpp_harness.hpp"

namespace attn::harness {

template <class Matrix, class Mask, class Attention>
nlohmann::json answer_attention(const nlohmann::json& request, Attention attention) {
  const Matrix Q = grader::decode_matrix(request.at("Q"), "Q", declared_cols(request, "Q"));
  const Matrix K = grader::decode_matrix(request.at("K"), "K", declared_cols(request, "K"));
  const Matrix V = grader::decode_matrix(request.at("V"), "V", declared_cols(request, "V"));
  std::optional<Mask> mask;
  if (const auto m = request.find("mask"); m != request.end() && !m->is_null()) {
    mask = grader::decode_mask(*m, "mask", declared_cols(request, "mask"));
  }
  return call_submission([&] {
    const auto r = attention(Q, K, V, mask);
    return nlohmann::json{{"O", grader::encode_matrix(r.O)}, {"A", grader::encode_matrix(r.A)}};
  });
}

}  // namespace attn::harness
