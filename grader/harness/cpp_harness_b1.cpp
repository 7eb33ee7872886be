// The C++ harness's exercise part for B1: Q, K, V, dO and the optional mask
// to b1::attention_backward, as the Python harness's answer_backward sends
// them (scale absent: NaN, the default 1/sqrt(d_k); causal false), and
// dQ, dK, dV back (grader/PROTOCOL.md). A call that changed an input
// (through const_cast) is a fault (KeptInputs).
#include <limits>

#include "attention_backward.hpp"
#include "cpp_harness_attention.hpp"

namespace attn::harness {

const ExerciseInfo exercise{"B1", "b1::attention_backward", {"attention_backward"}};

nlohmann::json answer(const nlohmann::json& request) {
  const auto in = decode_attention_inputs<b1::Matrix, b1::Mask>(request);
  const b1::Matrix dO = grader::decode_matrix(request.at("dO"), "dO", declared_cols(request, "dO"));
  KeptInputs kept = keep_attention_inputs(in);
  kept.keep("dO", dO);
  return call_keeping(kept, [&] {
    const b1::Gradients g = b1::attention_backward(
        in.Q, in.K, in.V, dO, in.mask, std::numeric_limits<double>::quiet_NaN(), false);
    return nlohmann::json{{"dQ", grader::encode_matrix(g.dQ)},
                          {"dK", grader::encode_matrix(g.dK)},
                          {"dV", grader::encode_matrix(g.dV)}};
  });
}

}  // namespace attn::harness
