// The hello line a submission sends first.
#include "protocol/hello.hpp"
#include "protocol/untrusted_text.hpp"

#include <nlohmann/json.hpp>

#include "attn/ref/number_format.hpp"
#include "protocol/protocol_error.hpp"
#include "protocol/protocol_version.hpp"

namespace attn::grader {
namespace {

std::string optional_string(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return {};
  if (!it->is_string()) throw ProtocolError(std::string("hello: \"") + key + "\" is not a string");
  // Shown in reports: the submission's own words, made safe (untrusted_text.hpp).
  return untrusted_text(it->get<std::string>(), kMaxMessageBytes);
}

Hello read_hello(std::string_view line) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error&) {
    std::string shown(line.substr(0, 200));
    throw ProtocolError("the first line is not a JSON hello: \"" + shown + "\"");
  }
  if (!j.is_object() || !j.contains("hello")) {
    throw ProtocolError("the first line is not a hello: " + j.dump().substr(0, 200));
  }
  const auto& name = j["hello"];
  if (!name.is_string() || name.get<std::string>() != protocol_name) {
    throw ProtocolError("the submission speaks " + name.dump() + ", the grader speaks \"" +
                        protocol_name + "\"");
  }
  if (!j.contains("v") || !j["v"].is_number_integer() || j["v"].get<int>() != protocol_version) {
    throw ProtocolError("hello: \"v\" must be " + std::to_string(protocol_version));
  }
  if (!j.contains("ok") || !j["ok"].is_boolean()) {
    throw ProtocolError("hello: \"ok\" must be true or false");
  }
  Hello h;
  h.ok = j["ok"].get<bool>();
  h.language = optional_string(j, "language");
  h.runtime = optional_string(j, "runtime");
  h.exercise = optional_string(j, "exercise");
  h.entry = optional_string(j, "entry");
  if (auto it = j.find("weights"); it != j.end()) {
    if (!it->is_boolean()) throw ProtocolError("hello: \"weights\" is not true or false");
    h.weights = it->get<bool>();
  }
  for (auto [key, field] : {std::pair{"precision", &h.precision}, std::pair{"accumulate", &h.accumulate}}) {
    const std::string given = optional_string(j, key);
    if (given.empty()) continue;
    const auto f = attn::ref::parse_format(given);
    if (!f)
      throw ProtocolError(std::string("hello: \"") + key + "\" must be " +
                          attn::ref::format_names("\"", " or ") + ", not \"" + given.substr(0, 40) + "\"");
    *field = attn::ref::format_name(*f);
  }
  if (auto it = j.find("ops"); it != j.end()) {
    if (!it->is_array()) throw ProtocolError("hello: \"ops\" is not an array");
    for (const auto& op : *it) {
      if (!op.is_string()) throw ProtocolError("hello: an entry of \"ops\" is not a string");
      h.ops.push_back(op.get<std::string>());
    }
  } else {
    h.ops = {"attention"};
  }
  if (!h.ok) {
    if (auto it = j.find("error"); it != j.end() && it->is_object()) {
      h.error_type = optional_string(*it, "type");
      h.error_message = optional_string(*it, "message");
      if (auto m = it->find("missing_entry"); m != it->end() && m->is_boolean())
        h.missing_entry = m->get<bool>();
    }
    if (h.error_type.empty()) h.error_type = "Error";
  }
  return h;
}

}  // namespace

Hello parse_hello(std::string_view line) {
  // Every message quotes the submission's bytes: made safe here, once. A
  // number too large for JSON's reader, or invalid UTF-8 met while quoting,
  // is nlohmann's out_of_range or type_error: a broken hello all the same.
  try {
    return read_hello(line);
  } catch (const ProtocolError& e) {
    throw ProtocolError(untrusted_text(e.what(), kMaxMessageBytes));
  } catch (const nlohmann::json::exception& e) {
    throw ProtocolError("the first line is not a JSON hello (" +
                        untrusted_text(e.what(), kMaxMessageBytes) + ")");
  }
}

}  // namespace attn::grader
