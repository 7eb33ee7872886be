#pragma once
// The hello line a submission sends first (grader/PROTOCOL.md, "Start").

#include <string>
#include <string_view>
#include <vector>

namespace attn::grader {

struct Hello {
  /// false if the submission could not be loaded (a SyntaxError, no entry
  /// function...): then error_type and error_message say why, and the
  /// submission is not gradable.
  bool ok = false;
  std::string language;  ///< "python", "c++", or what an executable says
  std::string runtime;   ///< "CPython 3.11.2, NumPy 1.24.2", "g++ 12.2.0"...
  std::string exercise;  ///< "F3"
  std::string entry;     ///< the function that answers, "scaled_dot_product_attention"
  std::vector<std::string> ops;  ///< operation names it answers ("attention")
  /// "weights": false says the kernel returns O only, no weights A (op
  /// attention; `attnlab check`): its replies then carry no "A" and the
  /// properties about A are skipped. Default true.
  bool weights = true;
  /// The declared storage type, "float64", "float32", "float16" or
  /// "bfloat16" (aliases "double", "float", "half", "fp16", "bf16" are read
  /// as these); empty when the hello does not say (PROTOCOL.md, "precision").
  std::string precision;
  /// The declared accumulation type, same names; empty when not said.
  std::string accumulate;
  std::string error_type;
  std::string error_message;
  /// With ok false: the file loaded but defines no function to call (none
  /// of the exercise's names, or not the one `--entry` named): the error's
  /// "missing_entry": true (PROTOCOL.md, "Start: the hello"). For
  /// `attnlab check` that is a usage error of the command line, not a fault
  /// of the kernel.
  bool missing_entry = false;
};

/// Parses a hello line:
///   {"v":1,"hello":"attnlab-protocol/1","ok":true,"ops":["attention"],...}
/// Members other than "v", "hello", "ok" are optional ("ops" defaults to
/// ["attention"]). Throws ProtocolError if the line is not JSON, is not a
/// hello, names another protocol version, or "precision" / "accumulate"
/// is not one of the type names.
Hello parse_hello(std::string_view line);

}  // namespace attn::grader
