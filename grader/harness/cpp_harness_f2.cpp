// The C++ harness's exercise part for F2: the request's S and mask to
// f2::masked_softmax. A request without a mask (null) gets an all-false mask
// of S's shape, since the F2 interface always takes one.
#include "protocol/json_matrix.hpp"
#include "cpp_harness.hpp"
#include "masked_softmax.hpp"

namespace attn::harness {

const ExerciseInfo exercise{"F2", "f2::masked_softmax", {"masked_softmax"}};

nlohmann::json answer(const nlohmann::json& request) {
  const f2::Matrix S = grader::decode_matrix(request.at("S"), "S", declared_cols(request, "S"));
  f2::Mask mask = f2::Mask::Constant(S.rows(), S.cols(), false);
  if (const auto m = request.find("mask"); m != request.end() && !m->is_null()) {
    mask = grader::decode_mask(*m, "mask", declared_cols(request, "mask"));
  }
  return call_keeping(KeptInputs().keep("S", S).keep("mask", mask), [&] {
    return nlohmann::json{{"A", grader::encode_matrix(f2::masked_softmax(S, mask))}};
  });
}

}  // namespace attn::harness
