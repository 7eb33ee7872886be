// Each operation's protocol encoding, one row per Operation (see
// operation_codec.hpp).
#include "protocol/operation_codec.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/json_double.hpp"
#include "protocol/json_matrix.hpp"
#include "protocol/protocol_error.hpp"

namespace attn::grader {
namespace {

using attn::prop::Case;
using attn::prop::Operation;
using attn::prop::Outcome;
using nlohmann::json;
using Index = Eigen::Index;

json shape_of(Index rows, Index cols) { return json::array({rows, cols}); }

std::string shape_text(Index rows, Index cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

/// "wrong shape: ..." when matrix (or mask) `name` is not rows x cols, else
/// empty. `dims` names the expected shape in the text's terms ("T_q x T_v").
/// A matrix of the wrong shape is a result (PROTOCOL.md): the properties
/// judge what is well shaped and score_shape charges the shape
/// (attn::prop::detail::judge_parts); only a mask, a gradient or a 4-D O of
/// the wrong shape is a fault.
template <class Matrix>
std::string shape_problem(const Matrix& m, const char* name, Index rows, Index cols,
                          const char* dims) {
  if (m.rows() == rows && m.cols() == cols) return "";
  return std::string("wrong shape: ") + name + " is " + shape_text(m.rows(), m.cols()) +
         ", expected " + shape_text(rows, cols) + " (" + dims + ")";
}

/// "T_q x T_v = 2 x 4".
std::string dims(const char* names, Index rows, Index cols) {
  return std::string(names) + " = " + std::to_string(rows) + " x " + std::to_string(cols);
}

/// rows * cols, a negative extent counting as 0.
std::size_t count(Index rows, Index cols) {
  return static_cast<std::size_t>(std::max<Index>(rows, 0)) *
         static_cast<std::size_t>(std::max<Index>(cols, 0));
}

// --- encoders that add to encode_inputs_from_flags ------------------------

void encode_tiled(const Case& c, json& r, json& shapes) {
  encode_inputs_from_flags(c, r, shapes);
  r["tile_q"] = c.tile_q;
  r["tile_k"] = c.tile_k;
}

void encode_causal_mask(const Case& c, json& r, json&) {
  r["T_q"] = c.mask_shape.T_q;
  r["T_v"] = c.mask_shape.T_v;
  r["alignment"] = c.mask_shape.bottom_right ? "bottom_right" : "top_left";
}

void encode_padding_mask(const Case& c, json& r, json&) {
  r["T_q"] = c.mask_shape.T_q;
  r["T_v"] = c.mask_shape.T_v;
  r["key_length"] = c.mask_shape.key_length;
}

/// 4-D tensors as nested arrays (PROTOCOL.md, "batched_attention").
void encode_batched(const Case& c, json& r, json& shapes) {
  const auto& b = c.batched;
  auto dims4 = [](const attn::prop::Shape4& s) { return std::vector<Index>(s.begin(), s.end()); };
  r["Q"] = encode_tensor(c.Q, dims4(b.Q));
  r["K"] = encode_tensor(c.K, dims4(b.K));
  r["V"] = encode_tensor(c.V, dims4(b.V));
  shapes["Q"] = dims4(b.Q);
  shapes["K"] = dims4(b.K);
  shapes["V"] = dims4(b.V);
  if (c.mask && !b.mask_dims.empty()) {
    r["mask"] = encode_mask_tensor(*c.mask, b.mask_dims);
    shapes["mask"] = b.mask_dims;
  } else {
    r["mask"] = nullptr;
  }
  r["scale"] = b.scale ? json(encode_double(*b.scale)) : json(nullptr);
  r["causal"] = b.causal;
  r["alignment"] = b.bottom_right ? "bottom_right" : "top_left";
}

// --- decoders -----------------------------------------------------------

/// A (the shape of S): the softmax operations.
Outcome decode_weights(const json& reply, const Case& c, bool) {
  RowMatrix A = decode_matrix(reply_member(reply, "A"), "A", c.S.cols());
  return Outcome::make_result(RowMatrix(), std::move(A));
}

Outcome decode_attention(const json& reply, const Case& c, bool weights) {
  const Index T_v = c.K.rows(), d_v = c.V.cols();
  RowMatrix O = decode_matrix(reply_member(reply, "O"), "O", d_v);
  if (!weights)  // a kernel that returns O only (the hello's "weights": false)
    return Outcome::make_result(std::move(O), RowMatrix());
  RowMatrix A = decode_matrix(reply_member(reply, "A"), "A", T_v);
  return Outcome::make_result(std::move(O), std::move(A));
}

Outcome decode_tiled(const json& reply, const Case& c, bool) {
  const Index d_v = c.V.cols();
  RowMatrix O = decode_matrix(reply_member(reply, "O"), "O", d_v);
  const auto& lse_json = reply_member(reply, "logsumexp");
  if (!lse_json.is_array()) throw ProtocolError("\"logsumexp\" is not an array of numbers");
  const Index n = static_cast<Index>(lse_json.size());
  RowMatrix lse(n, 1);
  for (Index i = 0; i < n; ++i) {
    lse(i, 0) = decode_double(lse_json[static_cast<std::size_t>(i)],
                              "logsumexp[" + std::to_string(i) + "]");
  }
  Outcome o = Outcome::make_result(std::move(O), RowMatrix());
  o.logsumexp = std::move(lse);
  return o;
}

Outcome decode_multi_head(const json& reply, const Case& c, bool) {
  RowMatrix O = decode_matrix(reply_member(reply, "O"), "O", c.W_O.cols());
  return Outcome::make_result(std::move(O), RowMatrix());
}

/// A built mask, T_q x T_v (a wrong shape is a fault).
Outcome decode_built_mask(const json& reply, const Case& c, bool) {
  const Index T_q = c.mask_shape.T_q, T_v = c.mask_shape.T_v;
  RowMask M = decode_mask(reply_member(reply, "mask"), "mask", T_v);
  if (std::string why = shape_problem(M, "mask", T_q, T_v, "T_q x T_v"); !why.empty())
    throw ProtocolError(why);
  Outcome o = Outcome::make_result(RowMatrix(), RowMatrix());
  o.mask = std::move(M);
  return o;
}

/// O as 4-D nested arrays (N, H, T_q, d_v), kept stacked (Case::Batched).
Outcome decode_batched(const json& reply, const Case& c, bool) {
  const auto& b = c.batched;
  const std::vector<Index> want = {b.Q[0], b.Q[1], b.Q[2], b.V[3]};
  StackedTensor O = decode_tensor(reply_member(reply, "O"), "O", 4);
  if (O.shape != want) {
    auto text = [](const std::vector<Index>& d) {
      std::string t = "(";
      for (std::size_t k = 0; k < d.size(); ++k) t += (k ? ", " : "") + std::to_string(d[k]);
      return t + ")";
    };
    throw ProtocolError("wrong shape: O is " + text(O.shape) + ", expected " + text(want) +
                        " (N, H, T_q, d_v)");
  }
  return Outcome::make_result(std::move(O.stacked), RowMatrix());
}

/// dQ (T_q x d_k), dK (T_v x d_k), dV (T_v x d_v); a wrong shape is a fault.
Outcome decode_backward(const json& reply, const Case& c, bool) {
  const Index T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols(), d_v = c.V.cols();
  RowMatrix dQ = decode_matrix(reply_member(reply, "dQ"), "dQ", d_k);
  RowMatrix dK = decode_matrix(reply_member(reply, "dK"), "dK", d_k);
  RowMatrix dV = decode_matrix(reply_member(reply, "dV"), "dV", d_v);
  std::string why = shape_problem(dQ, "dQ", T_q, d_k, "T_q x d_k");
  if (why.empty()) why = shape_problem(dK, "dK", T_v, d_k, "T_v x d_k");
  if (why.empty()) why = shape_problem(dV, "dV", T_v, d_v, "T_v x d_v");
  if (!why.empty()) throw ProtocolError(why);
  return Outcome::make_gradients(std::move(dQ), std::move(dK), std::move(dV));
}

// --- answers in shapes --------------------------------------------------

std::string weights_text(const Case& c) { return dims("T_q x T_v", c.S.rows(), c.S.cols()) + " A"; }
std::size_t weights_numbers(const Case& c) { return count(c.S.rows(), c.S.cols()); }

std::string attention_text(const Case& c) {
  return dims("T_q x d_v", c.Q.rows(), c.V.cols()) + " O and " +
         dims("T_q x T_v", c.Q.rows(), c.K.rows()) + " A";
}
std::size_t attention_numbers(const Case& c) {
  return count(c.Q.rows(), c.V.cols()) + count(c.Q.rows(), c.K.rows());
}

std::string tiled_text(const Case& c) {
  return dims("T_q x d_v", c.Q.rows(), c.V.cols()) + " O and " + std::to_string(c.Q.rows()) +
         " logsumexp values";
}
std::size_t tiled_numbers(const Case& c) { return count(c.Q.rows(), c.V.cols()) + count(c.Q.rows(), 1); }

std::string multi_head_text(const Case& c) { return dims("T x d_out", c.X.rows(), c.W_O.cols()) + " O"; }
std::size_t multi_head_numbers(const Case& c) { return count(c.X.rows(), c.W_O.cols()); }

std::string mask_text(const Case& c) {
  return dims("T_q x T_v", c.mask_shape.T_q, c.mask_shape.T_v) + " mask";
}
std::size_t mask_numbers(const Case& c) { return count(c.mask_shape.T_q, c.mask_shape.T_v); }

/// O is (N, H, T_q, d_v): Q's first three dimensions, V's last.
std::string batched_text(const Case& c) {
  const auto& b = c.batched;
  return "N x H x T_q x d_v = " + std::to_string(b.Q[0]) + " x " + std::to_string(b.Q[1]) +
         " x " + std::to_string(b.Q[2]) + " x " + std::to_string(b.V[3]) + " O";
}
std::size_t batched_numbers(const Case& c) {
  return count(c.batched.Q[0] * c.batched.Q[1] * c.batched.Q[2], c.batched.V[3]);
}

std::string backward_text(const Case& c) {
  return dims("T_q x d_k", c.Q.rows(), c.Q.cols()) + " dQ, " +
         dims("T_v x d_k", c.K.rows(), c.K.cols()) + " dK and " +
         dims("T_v x d_v", c.V.rows(), c.V.cols()) + " dV";
}
std::size_t backward_numbers(const Case& c) {
  return count(c.Q.rows(), c.Q.cols()) + count(c.K.rows(), c.K.cols()) + count(c.V.rows(), c.V.cols());
}

// One row per enumerator, in the enumerator's order (checked below).
// attention_backward's tiles are not sent: a submission's backward is
// called without them (PROTOCOL.md, "attention_backward").
constexpr OperationCodec kCodecs[] = {
    {Operation::softmax_rows, encode_inputs_from_flags, decode_weights, weights_text, weights_numbers},
    {Operation::masked_softmax, encode_inputs_from_flags, decode_weights, weights_text, weights_numbers},
    {Operation::attention, encode_inputs_from_flags, decode_attention, attention_text, attention_numbers},
    {Operation::attention_tiled, encode_tiled, decode_tiled, tiled_text, tiled_numbers},
    {Operation::multi_head_attention, encode_inputs_from_flags, decode_multi_head, multi_head_text,
     multi_head_numbers},
    {Operation::causal_mask, encode_causal_mask, decode_built_mask, mask_text, mask_numbers},
    {Operation::padding_mask, encode_padding_mask, decode_built_mask, mask_text, mask_numbers},
    {Operation::batched_attention, encode_batched, decode_batched, batched_text, batched_numbers},
    {Operation::attention_backward, encode_inputs_from_flags, decode_backward, backward_text,
     backward_numbers},
};

constexpr bool codecs_in_enumerator_order() {
  for (std::size_t i = 0; i < std::size(kCodecs); ++i)
    if (static_cast<std::size_t>(kCodecs[i].op) != i) return false;
  return std::size(kCodecs) == attn::prop::operation_specs().size();
}
static_assert(codecs_in_enumerator_order(),
              "kCodecs: one row per Operation, in the enumerator's order (as kOperationSpecs)");

}  // namespace

const OperationCodec& operation_codec(Operation op) { return kCodecs[static_cast<std::size_t>(op)]; }

void encode_inputs_from_flags(const Case& c, json& r, json& shapes) {
  namespace input = attn::prop::input;
  const unsigned in = attn::prop::operation_spec(c.op).inputs;
  if (in & input::logits) {
    r["S"] = encode_matrix(c.S);
    shapes["S"] = shape_of(c.S.rows(), c.S.cols());
  }
  if (in & input::qkv) {
    r["Q"] = encode_matrix(c.Q);
    r["K"] = encode_matrix(c.K);
    r["V"] = encode_matrix(c.V);
    shapes["Q"] = shape_of(c.Q.rows(), c.Q.cols());
    shapes["K"] = shape_of(c.K.rows(), c.K.cols());
    shapes["V"] = shape_of(c.V.rows(), c.V.cols());
  }
  if (in & input::upstream) {
    r["dO"] = encode_matrix(c.dO);
    shapes["dO"] = shape_of(c.dO.rows(), c.dO.cols());
  }
  if (in & input::projections) {
    // The heads share their shapes: `shapes` gives one head's W_Q, W_K, W_V.
    r["X"] = encode_matrix(c.X);
    shapes["X"] = shape_of(c.X.rows(), c.X.cols());
    for (const char* name : {"W_Q", "W_K", "W_V"}) r[name] = json::array();
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
  }
  if (in & input::mask) {
    if (c.mask) {
      r["mask"] = encode_mask(*c.mask);
      shapes["mask"] = shape_of(c.mask->rows(), c.mask->cols());
    } else {
      r["mask"] = nullptr;
    }
  }
}

const json& reply_member(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) throw ProtocolError(std::string("the reply has no \"") + key + "\"");
  return *it;
}

}  // namespace attn::grader
