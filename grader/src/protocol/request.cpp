// Case -> request line.
#include "protocol/request.hpp"

#include <nlohmann/json.hpp>

#include "protocol/json_double.hpp"
#include "protocol/json_matrix.hpp"
#include "protocol/protocol_version.hpp"

namespace attn::grader {
namespace {

nlohmann::json shape_of(Eigen::Index rows, Eigen::Index cols) {
  return nlohmann::json::array({rows, cols});
}

}  // namespace

std::string request_line(const attn::prop::Case& c, std::int64_t id) {
  nlohmann::json r;
  r["v"] = protocol_version;
  r["id"] = id;
  r["op"] = attn::prop::operation_name(c.op);
  auto shapes = nlohmann::json::object();
  if (c.op == attn::prop::Operation::batched_attention) {
    // 4-D tensors as nested arrays (PROTOCOL.md, "batched_attention").
    const auto& b = c.batched;
    auto dims = [](const attn::prop::Shape4& s) { return std::vector<Eigen::Index>(s.begin(), s.end()); };
    r["Q"] = encode_tensor(c.Q, dims(b.Q));
    r["K"] = encode_tensor(c.K, dims(b.K));
    r["V"] = encode_tensor(c.V, dims(b.V));
    shapes["Q"] = dims(b.Q);
    shapes["K"] = dims(b.K);
    shapes["V"] = dims(b.V);
    if (c.mask && !b.mask_dims.empty()) {
      r["mask"] = encode_mask_tensor(*c.mask, b.mask_dims);
      shapes["mask"] = b.mask_dims;
    } else {
      r["mask"] = nullptr;
    }
    r["scale"] = b.scale ? nlohmann::json(encode_double(*b.scale)) : nlohmann::json(nullptr);
    r["causal"] = b.causal;
    r["alignment"] = b.bottom_right ? "bottom_right" : "top_left";
    r["shapes"] = std::move(shapes);
    return r.dump();
  }
  if (attn::prop::takes_qkv(c.op)) {
    r["Q"] = encode_matrix(c.Q);
    r["K"] = encode_matrix(c.K);
    r["V"] = encode_matrix(c.V);
    shapes["Q"] = shape_of(c.Q.rows(), c.Q.cols());
    shapes["K"] = shape_of(c.K.rows(), c.K.cols());
    shapes["V"] = shape_of(c.V.rows(), c.V.cols());
    if (c.op == attn::prop::Operation::attention_backward) {
      r["dO"] = encode_matrix(c.dO);
      shapes["dO"] = shape_of(c.dO.rows(), c.dO.cols());
    }
  } else if (attn::prop::builds_mask(c.op)) {
    r["T_q"] = c.mask_shape.T_q;
    r["T_v"] = c.mask_shape.T_v;
    if (c.op == attn::prop::Operation::causal_mask)
      r["alignment"] = c.mask_shape.bottom_right ? "bottom_right" : "top_left";
    else
      r["key_length"] = c.mask_shape.key_length;
  } else if (c.op == attn::prop::Operation::multi_head_attention) {
    // The heads share their shapes: `shapes` gives one head's W_Q, W_K, W_V.
    r["X"] = encode_matrix(c.X);
    shapes["X"] = shape_of(c.X.rows(), c.X.cols());
    for (const char* name : {"W_Q", "W_K", "W_V"}) r[name] = nlohmann::json::array();
    for (const attn::prop::HeadProjections& h : c.heads) {
      r["W_Q"].push_back(encode_matrix(h.W_Q));
      r["W_K"].push_back(encode_matrix(h.W_K));
      r["W_V"].push_back(encode_matrix(h.W_V));
    }
    if (!c.heads.empty()) {
      const attn::prop::HeadProjections& h = c.heads.front();
      shapes["W_Q"] = shape_of(h.W_Q.rows(), h.W_Q.cols());
      shapes["W_K"] = shape_of(h.W_K.rows(), h.W_K.cols());
      shapes["W_V"] = shape_of(h.W_V.rows(), h.W_V.cols());
    }
    r["W_O"] = encode_matrix(c.W_O);
    shapes["W_O"] = shape_of(c.W_O.rows(), c.W_O.cols());
  } else {
    r["S"] = encode_matrix(c.S);
    shapes["S"] = shape_of(c.S.rows(), c.S.cols());
  }
  if (c.op != attn::prop::Operation::softmax_rows && !attn::prop::builds_mask(c.op)) {
    if (c.mask) {
      r["mask"] = encode_mask(*c.mask);
      shapes["mask"] = shape_of(c.mask->rows(), c.mask->cols());
    } else {
      r["mask"] = nullptr;
    }
  }
  if (c.op == attn::prop::Operation::attention_tiled) {
    r["tile_q"] = c.tile_q;
    r["tile_k"] = c.tile_k;
  }
  r["shapes"] = std::move(shapes);
  return r.dump();
}

}  // namespace attn::grader
