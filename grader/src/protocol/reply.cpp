// Reply line -> Outcome.
#include "protocol/reply.hpp"
#include "protocol/untrusted_text.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "protocol/json_double.hpp"
#include "protocol/json_matrix.hpp"
#include "protocol/protocol_error.hpp"
#include "protocol/protocol_version.hpp"

namespace attn::grader {
namespace {

using attn::prop::Outcome;
using Index = Eigen::Index;

std::string shape_text(Index rows, Index cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

std::string excerpt(std::string_view line) { return untrusted_text(line, 200); }

const nlohmann::json& member(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) throw ProtocolError(std::string("the reply has no \"") + key + "\"");
  return *it;
}

std::string string_member(const nlohmann::json& obj, const char* key, const char* where) {
  const auto& v = member(obj, key);
  if (!v.is_string()) {
    throw ProtocolError(std::string(where) + " \"" + key + "\" is " + v.type_name() +
                        ", expected a string");
  }
  return v.get<std::string>();
}

/// "wrong shape: ..." when matrix (or mask) `name` is not rows x cols, else
/// empty. `dims` names the expected shape in the text's terms ("T_q x T_v").
/// A matrix of the wrong shape is a result (PROTOCOL.md): the properties
/// judge what is well shaped and score_shape charges the shape
/// (attn::prop::detail::judge_parts); only a mask or a 4-D O of the wrong
/// shape is a fault.
template <class Matrix>
std::string shape_problem(const Matrix& m, const char* name, Index rows, Index cols,
                          const char* dims) {
  if (m.rows() == rows && m.cols() == cols) return "";
  return std::string("wrong shape: ") + name + " is " + shape_text(m.rows(), m.cols()) +
         ", expected " + shape_text(rows, cols) + " (" + dims + ")";
}

Outcome decode_reply(std::string_view line, std::int64_t id, const attn::prop::Case& c,
                     bool& paired, bool weights) {
  nlohmann::json reply;
  try {
    reply = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    throw ProtocolError(std::string("the reply is not JSON (") + e.what() + ")");
  }
  if (!reply.is_object()) throw ProtocolError("the reply is not a JSON object");
  const auto& v = member(reply, "v");
  if (!v.is_number_integer() || v.get<std::int64_t>() != protocol_version) {
    throw ProtocolError("the reply has \"v\": " + v.dump() + ", expected " +
                        std::to_string(protocol_version));
  }
  const auto& rid = member(reply, "id");
  if (!rid.is_number_integer() || rid.get<std::int64_t>() != id) {
    throw ProtocolError("the reply has \"id\": " + rid.dump() + ", expected " +
                        std::to_string(id));
  }
  paired = true;
  const auto& ok = member(reply, "ok");
  if (!ok.is_boolean()) throw ProtocolError("the reply's \"ok\" is not true or false");

  if (!ok.get<bool>()) {
    if (reply.contains("fault")) {
      return Outcome::make_fault(
          "the harness could not use the answer: " +
          untrusted_text(string_member(reply, "fault", "the reply's"), kMaxMessageBytes));
    }
    const auto& err = member(reply, "error");
    if (!err.is_object()) throw ProtocolError("the reply's \"error\" is not an object");
    return Outcome::make_refusal(
        untrusted_text(string_member(err, "type", "the error's"), kMaxErrorTypeBytes),
        untrusted_text(string_member(err, "message", "the error's"), kMaxMessageBytes));
  }

  if (c.op == attn::prop::Operation::attention) {
    const Index T_v = c.K.rows(), d_v = c.V.cols();
    RowMatrix O = decode_matrix(member(reply, "O"), "O", d_v);
    if (!weights)  // a kernel that returns O only (the hello's "weights": false)
      return Outcome::make_result(std::move(O), RowMatrix());
    RowMatrix A = decode_matrix(member(reply, "A"), "A", T_v);
    return Outcome::make_result(std::move(O), std::move(A));
  }
  if (c.op == attn::prop::Operation::attention_tiled) {
    const Index d_v = c.V.cols();
    RowMatrix O = decode_matrix(member(reply, "O"), "O", d_v);
    const auto& lse_json = member(reply, "logsumexp");
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
  if (c.op == attn::prop::Operation::attention_backward) {
    // dQ (T_q x d_k), dK (T_v x d_k), dV (T_v x d_v); a wrong shape is a fault.
    const Index T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols(), d_v = c.V.cols();
    RowMatrix dQ = decode_matrix(member(reply, "dQ"), "dQ", d_k);
    RowMatrix dK = decode_matrix(member(reply, "dK"), "dK", d_k);
    RowMatrix dV = decode_matrix(member(reply, "dV"), "dV", d_v);
    std::string why = shape_problem(dQ, "dQ", T_q, d_k, "T_q x d_k");
    if (why.empty()) why = shape_problem(dK, "dK", T_v, d_k, "T_v x d_k");
    if (why.empty()) why = shape_problem(dV, "dV", T_v, d_v, "T_v x d_v");
    if (!why.empty()) throw ProtocolError(why);
    return Outcome::make_gradients(std::move(dQ), std::move(dK), std::move(dV));
  }
  if (attn::prop::builds_mask(c.op)) {
    const Index T_q = c.mask_shape.T_q, T_v = c.mask_shape.T_v;
    RowMask M = decode_mask(member(reply, "mask"), "mask", T_v);
    if (std::string why = shape_problem(M, "mask", T_q, T_v, "T_q x T_v"); !why.empty())
      throw ProtocolError(why);
    Outcome o = Outcome::make_result(RowMatrix(), RowMatrix());
    o.mask = std::move(M);
    return o;
  }
  if (c.op == attn::prop::Operation::batched_attention) {
    // O as 4-D nested arrays (N, H, T_q, d_v), kept stacked (Case::Batched).
    const auto& b = c.batched;
    const std::vector<Index> want = {b.Q[0], b.Q[1], b.Q[2], b.V[3]};
    StackedTensor O = decode_tensor(member(reply, "O"), "O", 4);
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
  if (c.op == attn::prop::Operation::multi_head_attention) {
    RowMatrix O = decode_matrix(member(reply, "O"), "O", c.W_O.cols());
    return Outcome::make_result(std::move(O), RowMatrix());
  }
  RowMatrix A = decode_matrix(member(reply, "A"), "A", c.S.cols());
  return Outcome::make_result(RowMatrix(), std::move(A));
}

}  // namespace

Outcome parse_reply(std::string_view line, std::int64_t id, const attn::prop::Case& c,
                    bool* paired, bool weights) {
  bool is_paired = false;
  Outcome o;
  // The reply on a line of its own, indented under the message (as the
  // stderr excerpt of a crash is).
  try {
    o = decode_reply(line, id, c, is_paired, weights);
  } catch (const std::exception& e) {  // ProtocolError, nlohmann's errors, bad_alloc
    // The message may quote the reply's bytes (nlohmann's "last read: ..."): made safe.
    o = Outcome::make_fault("malformed reply: " + untrusted_text(e.what(), kMaxMessageBytes) +
                            "\n  reply: " + excerpt(line));
  }
  if (paired) *paired = is_paired;
  return o;
}

}  // namespace attn::grader
