#pragma once
// The C++ harness's answer for the attention exercises (F3, F4, and T1's
// naive companion): decodes Q, K, V and the optional mask, calls `attention`
// (f3::attention, f4::attention, t1::attention) and encodes O and A; a call
// that changed an input (through const_cast) is a fault (KeptInputs).

#include <optional>

#include "protocol/json_matrix.hpp"
#include "cpp_harness.hpp"

namespace attn::harness {

/// The request's "mask": nullopt when it is absent or null.
template <class Mask>
std::optional<Mask> decode_optional_mask(const nlohmann::json& request) {
  if (const auto m = request.find("mask"); m != request.end() && !m->is_null())
    return grader::decode_mask(*m, "mask", declared_cols(request, "mask"));
  return std::nullopt;
}

/// The request's Q, K, V and optional mask (ops attention, attention_tiled).
template <class Matrix, class Mask>
struct AttentionInputs {
  Matrix Q, K, V;
  std::optional<Mask> mask;
};

template <class Matrix, class Mask>
AttentionInputs<Matrix, Mask> decode_attention_inputs(const nlohmann::json& request) {
  AttentionInputs<Matrix, Mask> in;
  in.Q = grader::decode_matrix(request.at("Q"), "Q", declared_cols(request, "Q"));
  in.K = grader::decode_matrix(request.at("K"), "K", declared_cols(request, "K"));
  in.V = grader::decode_matrix(request.at("V"), "V", declared_cols(request, "V"));
  in.mask = decode_optional_mask<Mask>(request);
  return in;
}

/// Keeps Q, K, V and the mask of `in` (KeptInputs), to fault a call that changes them.
template <class Matrix, class Mask>
KeptInputs keep_attention_inputs(const AttentionInputs<Matrix, Mask>& in) {
  KeptInputs kept;
  kept.keep("Q", in.Q).keep("K", in.K).keep("V", in.V).keep("mask", in.mask);
  return kept;
}

template <class Matrix, class Mask, class Attention>
nlohmann::json answer_attention(const nlohmann::json& request, Attention attention) {
  const auto in = decode_attention_inputs<Matrix, Mask>(request);
  return call_keeping(keep_attention_inputs(in), [&] {
    const auto r = attention(in.Q, in.K, in.V, in.mask);
    nlohmann::json out{{"O", grader::encode_matrix(r.O)}};
    if (returns_weights) out["A"] = grader::encode_matrix(r.A);
    return out;
  });
}

/// ExerciseInfo::probe_weights for an attention kernel: whether its result's
/// A is not empty on a 1 x 1 case. A kernel that throws there is taken to
/// return A (its answers will say what it does).
template <class Matrix, class Mask, class Attention>
bool probe_attention_weights(Attention attention) {
  try {
    const Matrix Q = Matrix::Zero(1, 1), K = Matrix::Zero(1, 1), V = Matrix::Ones(1, 1);
    return attention(Q, K, V, std::optional<Mask>()).A.size() != 0;
  } catch (...) {
    return true;
  }
}

}  // namespace attn::harness
