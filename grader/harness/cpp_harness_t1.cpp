// The C++ harness's exercise part for T1: the tiled kernel t1::attention_tiled
// (op attention_tiled, with tile_q and tile_k) and its naive companion
// t1::attention (op attention), grader/PROTOCOL.md.
#include <optional>
#include <string>

#include "attention_tiled.hpp"
#include "attn/grader/json_double.hpp"
#include "attn/grader/json_matrix.hpp"
#include "cpp_harness.hpp"
#include "cpp_harness_attention.hpp"

namespace attn::harness {

const ExerciseInfo exercise{"T1", "t1::attention_tiled, t1::attention",
                            {"attention_tiled", "attention"}};

nlohmann::json answer(const nlohmann::json& request) {
  if (request.at("op").get<std::string>() == "attention")
    return answer_attention<t1::Matrix, t1::Mask>(request, t1::attention);
  const t1::Matrix Q = grader::decode_matrix(request.at("Q"), "Q", declared_cols(request, "Q"));
  const t1::Matrix K = grader::decode_matrix(request.at("K"), "K", declared_cols(request, "K"));
  const t1::Matrix V = grader::decode_matrix(request.at("V"), "V", declared_cols(request, "V"));
  std::optional<t1::Mask> mask;
  if (const auto m = request.find("mask"); m != request.end() && !m->is_null())
    mask = grader::decode_mask(*m, "mask", declared_cols(request, "mask"));
  const auto tile_q = request.at("tile_q").get<Eigen::Index>();
  const auto tile_k = request.at("tile_k").get<Eigen::Index>();
  return call_submission([&] {
    const t1::TiledResult r = t1::attention_tiled(Q, K, V, mask, tile_q, tile_k);
    nlohmann::json lse = nlohmann::json::array();
    for (Eigen::Index i = 0; i < r.logsumexp.size(); ++i)
      lse.push_back(grader::encode_double(r.logsumexp(i)));
    return nlohmann::json{{"O", grader::encode_matrix(r.O)}, {"logsumexp", lse}};
  });
}

}  // namespace attn::harness
