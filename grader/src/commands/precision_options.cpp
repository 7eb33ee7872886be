// --precision and --accumulate (precision_options.hpp).
#include "commands/precision_options.hpp"

#include <stdexcept>
#include <string>

#include "attn/prop/subject.hpp"
#include "attn/ref/number_format.hpp"

namespace attn::grader {

namespace {

/// Checks and canonicalises a type name: "bf16" -> "bfloat16".
/// The message is the value's alone: CLI11 puts the option's name before
/// it ("--precision: 'float8' is not a type ...").
std::string canonical_type(std::string& value) {
  const auto f = attn::ref::parse_format(value);
  if (!f) return "'" + value + "' is not a type (" + attn::ref::format_names() + ")";
  value = attn::ref::format_name(*f);
  return {};
}

/// The storage types for --precision's help: "float64 (default), float32,
/// float16, bfloat16" (the table's order; float64 is its first row).
std::string storage_types_help() {
  std::string names = attn::ref::format_names();
  const std::string first = attn::ref::format_name(attn::ref::NumberFormat::float64);
  if (names.starts_with(first)) names.insert(first.size(), " (default)");
  return names;
}

/// The table's default accumulation types for --accumulate's help: "float32
/// for float16 and bfloat16" (each format accumulated in another by default,
/// grouped by that type).
std::string default_accumulation_help() {
  std::string help;
  for (const attn::ref::FormatInfo& acc : attn::ref::number_formats()) {
    const std::string stored = attn::ref::format_names("", " and ", [&acc](const attn::ref::FormatInfo& f) {
      return f.default_accumulate == acc.format && f.format != acc.format;
    });
    if (stored.empty()) continue;
    help += (help.empty() ? "" : "; ") + std::string(acc.name) + " for " + stored;
  }
  return help;
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
                     "the kernel's storage type: " + storage_types_help() +
                         " (inputs exact in it, the bound for it; over the hello's \"precision\")")
          ->type_name("TYPE")
          ->transform(CLI::Validator([](std::string& v) { return canonical_type(v); },
                                     "TYPE"));
  app.add_option("--accumulate", choice.accumulate,
                 "the kernel's accumulation type (logits, softmax max and sums, P V): default " +
                     default_accumulation_help() + ", else the storage type")
      ->type_name("TYPE")
      ->transform(CLI::Validator([storage](std::string& v) {
        if (std::string why = canonical_type(v); !why.empty()) return why;
        // The storage type as given (parsed before the options' callbacks run).
        const auto raw = storage->results();
        const auto s = raw.empty() ? attn::ref::NumberFormat::float64 : attn::ref::parse_format(raw.back());
        const auto a = attn::ref::parse_format(v);
        if (s && a && !attn::ref::format_covers(*a, *s))
          return "accumulating in " + v + " cannot hold " + attn::ref::format_name(*s) +
                 " values (the accumulation type must be the storage type or a wider one)";
        return std::string();
      }, "TYPE"));
}

}  // namespace attn::grader
