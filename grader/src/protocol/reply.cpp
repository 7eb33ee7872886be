// Reply line -> Outcome.
#include "protocol/reply.hpp"
#include "protocol/untrusted_text.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "protocol/operation_codec.hpp"
#include "protocol/protocol_error.hpp"
#include "protocol/protocol_version.hpp"

namespace attn::grader {
namespace {

using attn::prop::Outcome;

std::string excerpt(std::string_view line) { return untrusted_text(line, 200); }

std::string string_member(const nlohmann::json& obj, const char* key, const char* where) {
  const auto& v = reply_member(obj, key);
  if (!v.is_string()) {
    throw ProtocolError(std::string(where) + " \"" + key + "\" is " + v.type_name() +
                        ", expected a string");
  }
  return v.get<std::string>();
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
  const auto& v = reply_member(reply, "v");
  if (!v.is_number_integer() || v.get<std::int64_t>() != protocol_version) {
    throw ProtocolError("the reply has \"v\": " + v.dump() + ", expected " +
                        std::to_string(protocol_version));
  }
  const auto& rid = reply_member(reply, "id");
  if (!rid.is_number_integer() || rid.get<std::int64_t>() != id) {
    throw ProtocolError("the reply has \"id\": " + rid.dump() + ", expected " +
                        std::to_string(id));
  }
  paired = true;
  const auto& ok = reply_member(reply, "ok");
  if (!ok.is_boolean()) throw ProtocolError("the reply's \"ok\" is not true or false");

  if (!ok.get<bool>()) {
    if (reply.contains("fault")) {
      return Outcome::make_fault(
          "the harness could not use the answer: " +
          untrusted_text(string_member(reply, "fault", "the reply's"), kMaxMessageBytes));
    }
    const auto& err = reply_member(reply, "error");
    if (!err.is_object()) throw ProtocolError("the reply's \"error\" is not an object");
    return Outcome::make_refusal(
        untrusted_text(string_member(err, "type", "the error's"), kMaxErrorTypeBytes),
        untrusted_text(string_member(err, "message", "the error's"), kMaxMessageBytes));
  }

  return operation_codec(c.op).decode(reply, c, weights);  // operation_codec.cpp
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
