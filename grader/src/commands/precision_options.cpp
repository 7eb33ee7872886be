// --precision and --accumulate (precision_options.hpp).
#include "commands/precision_options.hpp"

#include <stdexcept>

#include "attn/prop/subject.hpp"
#include "attn/ref/number_format.hpp"

namespace attn::grader {

namespace {

/// Checks and canonicalises a type name: "bf16" -> "bfloat16".
/// The message is the value's alone: CLI11 puts the option's name before
/// it ("--precision: 'float8' is not a type ...").
std::string canonical_type(std::string& value) {
  const auto f = attn::ref::parse_format(value);
  if (!f) return "'" + value + "' is not a type (float64, float32, float16, bfloat16)";
  value = attn::ref::format_name(*f);
  return {};
}

}  // namespace

PrecisionRequest PrecisionChoice::request() const {
  PrecisionRequest r;
  if (!precision.empty()) r.storage = attn::ref::parse_format(precision);
  if (!accumulate.empty()) r.accumulate = attn::ref::parse_format(accumulate);
  return r;
}

void add_precision_options(CLI::App& app, PrecisionChoice& choice) {
  CLI::Option* storage =
      app.add_option("--precision", choice.precision,
                     "the kernel's storage type: float64 (default), float32, float16, bfloat16 "
                     "(inputs exact in it, the bound for it; over the hello's \"precision\")")
          ->type_name("TYPE")
          ->transform(CLI::Validator([](std::string& v) { return canonical_type(v); },
                                     "TYPE"));
  app.add_option("--accumulate", choice.accumulate,
                 "the kernel's accumulation type (logits, softmax max and sums, P V): default "
                 "float32 for float16 and bfloat16, else the storage type")
      ->type_name("TYPE")
      ->transform(CLI::Validator([storage](std::string& v) {
        if (std::string why = canonical_type(v); !why.empty()) return why;
        // The storage type as given (parsed before the options' callbacks run).
        const auto raw = storage->results();
        const auto s = attn::ref::parse_format(raw.empty() ? "float64" : raw.back());
        const auto a = attn::ref::parse_format(v);
        if (s && a && !attn::ref::format_covers(*a, *s))
          return "accumulating in " + v + " cannot hold " + attn::ref::format_name(*s) +
                 " values (the accumulation type must be the storage type or a wider one)";
        return std::string();
      }, "TYPE"));
}

}  // namespace attn::grader
