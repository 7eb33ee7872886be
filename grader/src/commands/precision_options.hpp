#pragma once
// --precision and --accumulate, for every subcommand that runs a subject
// (grade; check). The declared precision's model is reference/TOLERANCE.md's
// "Storage and accumulation types"; the choice between the command line,
// the hello and the default is submission/declared_precision.hpp.

#include <CLI/CLI.hpp>
#include <string>

#include "submission/declared_precision.hpp"

namespace attn::grader {

/// What the two options hold after parsing: canonical type names
/// ("float64", "float32", "float16", "bfloat16"), empty when not given.
struct PrecisionChoice {
  std::string precision;
  std::string accumulate;
  /// As a request for ProcessSubject (SubjectOptions::precision).
  PrecisionRequest request() const;
};

/// Adds `--precision TYPE` (the storage type: inputs, the weights P before
/// P V, the returned A and O) and `--accumulate TYPE` (logits, max, exp,
/// sums, logsumexp; default float32 for float16 and bfloat16, else the
/// storage type) to `app`. TYPE is float64, float32, float16 or bfloat16
/// (also double, float, half, fp16, bf16). Anything else, or an accumulation
/// type that cannot hold the storage type (bfloat16 accumulating in
/// float16), is a CLI11 parse error, which attnlab turns into a usage error
/// (exit 2).
void add_precision_options(CLI::App& app, PrecisionChoice& choice);

}  // namespace attn::grader
