#pragma once
// The precision a submission is graded in: from the command line
// (--precision, --accumulate), else from its hello ("precision",
// "accumulate", PROTOCOL.md), else float64. Storage and accumulation types
// are declared separately; the bound is reference/TOLERANCE.md's model for
// the pair.

#include <optional>
#include <string>

#include "attn/prop/subject.hpp"
#include "attn/ref/number_format.hpp"
#include "protocol/hello.hpp"

namespace attn::grader {

/// What the command line asked for; nullopt: not given.
struct PrecisionRequest {
  std::optional<attn::ref::NumberFormat> storage;
  std::optional<attn::ref::NumberFormat> accumulate;
};

/// The chosen precision and where it came from.
struct DeclaredPrecision {
  attn::prop::Precision precision = attn::prop::Precision::of_double();
  /// "the command line", "the hello", "the default".
  std::string source = "the default";
  /// For reports: "float32 (from the hello)", "bfloat16 accumulating in
  /// float32 (from the command line)", "float64 (the default)".
  std::string describe() const;
};

/// Chooses, type by type, the command line over the hello over the default:
/// storage float64; accumulation the hello's only when the storage chosen
/// is the hello's, else float32 for float16 and bfloat16 storage and the
/// storage type otherwise. `source` names where the storage type came from
/// (with " and the hello" / " and the command line" appended when the
/// accumulation type came from elsewhere). Throws std::invalid_argument
/// when the accumulation type does not cover the storage type (bfloat16
/// accumulating in float16, float32 accumulating in bfloat16).
DeclaredPrecision choose_precision(const PrecisionRequest& command_line, const Hello& hello);

}  // namespace attn::grader
