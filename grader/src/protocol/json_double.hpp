#pragma once
// One double on the protocol (grader/PROTOCOL.md, "Numbers").
//
// A finite double travels as a JSON number whose text reads back to the same
// double (nlohmann writes the shortest such text, at most 17 significant
// digits; -0.0 is written "-0.0"). NaN, +Inf and -Inf, which JSON cannot
// express as numbers, travel as the strings "NaN", "Infinity", "-Infinity".

#include <string_view>

#include <nlohmann/json.hpp>

namespace attn::grader {

/// The JSON value for x: a number if x is finite, else one of the three strings.
nlohmann::json encode_double(double x);

/// The double a JSON value stands for: any JSON number (integer or float),
/// or one of "NaN", "Infinity", "-Infinity".
/// Throws ProtocolError naming `what` (for example "Q[2][0]") for any other
/// value (a bool, null, another string, an array, an object).
double decode_double(const nlohmann::json& v, std::string_view what);

}  // namespace attn::grader
