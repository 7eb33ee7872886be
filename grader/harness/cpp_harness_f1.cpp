// The C++ harness's exercise part for F1: the request's S to f1::softmax_rows.
#include "protocol/json_matrix.hpp"
#include "cpp_harness.hpp"
#include "softmax_rows.hpp"

namespace attn::harness {

const ExerciseInfo exercise{"F1", "f1::softmax_rows", {"softmax_rows"}};

nlohmann::json answer(const nlohmann::json& request) {
  const f1::Matrix S = grader::decode_matrix(request.at("S"), "S", declared_cols(request, "S"));
  return call_keeping(KeptInputs().keep("S", S), [&] {
    return nlohmann::json{{"A", grader::encode_matrix(f1::softmax_rows(S))}};
  });
}

}  // namespace attn::harness
