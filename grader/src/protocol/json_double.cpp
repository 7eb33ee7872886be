// One double on the protocol: JSON number if finite, else "NaN"/"Infinity"/"-Infinity".
#include "protocol/json_double.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "protocol/protocol_error.hpp"

namespace attn::grader {

nlohmann::json encode_double(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  return x;  // nlohmann writes the shortest text that reads back to x
}

double decode_double(const nlohmann::json& v, std::string_view what) {
  switch (v.type()) {
    case nlohmann::json::value_t::number_float:
      return v.get<double>();
    case nlohmann::json::value_t::number_integer:
      return static_cast<double>(v.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return static_cast<double>(v.get<std::uint64_t>());
    case nlohmann::json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
      if (s == "Infinity") return std::numeric_limits<double>::infinity();
      if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
      throw ProtocolError(std::string(what) + " is the string \"" + s.substr(0, 40) +
                          "\"; the only strings allowed for numbers are \"NaN\", "
                          "\"Infinity\" and \"-Infinity\"");
    }
    default:
      throw ProtocolError(std::string(what) + " is " + std::string(v.type_name()) +
                          ", expected a number");
  }
}

}  // namespace attn::grader
