// Case -> request line.
#include "protocol/request.hpp"

#include <nlohmann/json.hpp>

#include "protocol/operation_codec.hpp"
#include "protocol/protocol_version.hpp"

namespace attn::grader {

std::string request_line(const attn::prop::Case& c, std::int64_t id) {
  nlohmann::json r;
  r["v"] = protocol_version;
  r["id"] = id;
  r["op"] = attn::prop::operation_name(c.op);
  auto shapes = nlohmann::json::object();
  operation_codec(c.op).encode(c, r, shapes);  // the operation's fields (operation_codec.cpp)
  r["shapes"] = std::move(shapes);
  return r.dump();
}

}  // namespace attn::grader
