#pragma once
// Each operation's protocol encoding as data: one row per
// attn::prop::Operation, in the enumerator's order (checked at compile time
// in operation_codec.cpp, as attn::prop::detail::kOperationSpecs is), read by
// request.cpp, reply.cpp and submission/process_subject.cpp
// (grader/PROTOCOL.md, "Requests" and "Replies"; docs/ARCHITECTURE.md, "How
// to add", an operation).

#include <cstddef>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "attn/prop/case.hpp"
#include "attn/prop/operation.hpp"
#include "attn/prop/outcome.hpp"

namespace attn::grader {

/// How one operation's Case travels to a submission and its answer back.
struct OperationCodec {
  attn::prop::Operation op;
  /// Writes the Case's inputs into the request object `request` (beside "v",
  /// "id", "op") and each tensor's dimensions into `shapes` ([rows, cols],
  /// or the 4-D dimensions). Most rows write the fields the operation's
  /// input:: flags name (encode_inputs_from_flags). Does not throw for any
  /// Case: inconsistent shapes are sent as they are.
  void (*encode)(const attn::prop::Case& c, nlohmann::json& request, nlohmann::json& shapes);
  /// The answer of an "ok": true reply object `reply` to a request for `c`
  /// (the members the operation's answer:: flags name). `weights` false
  /// (the hello's "weights": false): attention's A is not read. Throws
  /// ProtocolError (or nlohmann's errors) for a missing member, a malformed
  /// matrix, or a mask, a gradient or a 4-D O of the wrong shape.
  attn::prop::Outcome (*decode)(const nlohmann::json& reply, const attn::prop::Case& c,
                                bool weights);
  /// What an answer to `c` is, in shapes, for a message:
  /// "T_q x d_v = 2 x 3 O and T_q x T_v = 2 x 4 A".
  std::string (*answer_text)(const attn::prop::Case& c);
  /// How many numbers (or mask entries) a well-shaped answer to `c` holds
  /// (the bound on a reply's length, process_subject.hpp's reply_limit_bytes).
  std::size_t (*answer_numbers)(const attn::prop::Case& c);
};

/// The row of `op` (an Operation's value is its row).
const OperationCodec& operation_codec(attn::prop::Operation op);

/// The request fields the operation's input:: flags name
/// (attn::prop::operation_spec(c.op).inputs): logits S, Q K V as matrices,
/// upstream dO, the mask (or null), projections X W_Q W_K W_V W_O. Tiles,
/// mask_shape and batched inputs are the rows' own.
void encode_inputs_from_flags(const attn::prop::Case& c, nlohmann::json& request,
                              nlohmann::json& shapes);

/// Member `key` of reply object `obj`; throws ProtocolError ("the reply has
/// no \"key\"") when absent.
const nlohmann::json& reply_member(const nlohmann::json& obj, const char* key);

}  // namespace attn::grader
