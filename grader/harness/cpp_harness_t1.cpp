// The C++ harness's exercise part for T1: the tiled kernel t1::attention_tiled
// (op attention_tiled, with tile_q and tile_k) and its naive companion
// t1::attention (op attention), grader/PROTOCOL.md.
#include <string>

#include "attention_tiled.hpp"
#include "protocol/json_double.hpp"
#include "protocol/json_matrix.hpp"
#include "cpp_harness.hpp"
#include "cpp_harness_attention.hpp"

namespace attn::harness {

const ExerciseInfo exercise{"T1", "t1::attention_tiled, t1::attention",
                            {"attention_tiled", "attention"}};

nlohmann::json answer(const nlohmann::json& request) {
  if (request.at("op").get<std::string>() == "attention")
    return answer_attention<t1::Matrix, t1::Mask>(request, t1::attention);
  const auto in = decode_attention_inputs<t1::Matrix, t1::Mask>(request);
  const auto tile_q = request.at("tile_q").get<Eigen::Index>();
  const auto tile_k = request.at("tile_k").get<Eigen::Index>();
  return call_keeping(keep_attention_inputs(in), [&] {
    const t1::TiledResult r = t1::attention_tiled(in.Q, in.K, in.V, in.mask, tile_q, tile_k);
    nlohmann::json lse = nlohmann::json::array();
    for (Eigen::Index i = 0; i < r.logsumexp.size(); ++i)
      lse.push_back(grader::encode_double(r.logsumexp(i)));
    return nlohmann::json{{"O", grader::encode_matrix(r.O)}, {"logsumexp", lse}};
  });
}

}  // namespace attn::harness
