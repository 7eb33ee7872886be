// Choosing the declared precision (declared_precision.hpp).
#include "submission/declared_precision.hpp"

namespace attn::grader {

using attn::prop::Precision;
using attn::ref::NumberFormat;

std::string DeclaredPrecision::describe() const {
  std::string s = attn::ref::format_name(precision.storage);
  if (precision.accumulate != precision.storage)
    s += std::string(" accumulating in ") + attn::ref::format_name(precision.accumulate);
  return s + (source == "the default" ? " (the default)" : " (from " + source + ")");
}

DeclaredPrecision choose_precision(const PrecisionRequest& command_line, const Hello& hello) {
  const auto from_hello = [](const std::string& s) { return attn::ref::parse_format(s); };
  DeclaredPrecision d;
  NumberFormat storage = NumberFormat::float64;
  bool storage_from_hello = false;
  if (command_line.storage) {
    storage = *command_line.storage;
    d.source = "the command line";
  } else if (auto f = from_hello(hello.precision)) {
    storage = *f;
    storage_from_hello = true;
    d.source = "the hello";
  }
  std::optional<NumberFormat> accumulate;
  if (command_line.accumulate) {
    accumulate = command_line.accumulate;
    if (d.source != "the command line")
      d.source = d.source == "the default" ? "the command line" : d.source + " and the command line";
  } else if (auto f = from_hello(hello.accumulate);
             f && (storage_from_hello || (command_line.storage && from_hello(hello.precision) == storage))) {
    accumulate = f;
    if (!storage_from_hello) d.source += " and the hello";
  } else if (auto f2 = from_hello(hello.accumulate); f2 && d.source == "the default") {
    // The hello names only its accumulation type: it applies to float64 storage.
    accumulate = f2;
    d.source = "the hello";
  }
  const Precision p = Precision::of(storage, accumulate);  // throws on a pair that does not fit
  // The two presets keep their old names ("float", "double") in the properties' messages.
  if (p.storage == p.accumulate && p.storage == NumberFormat::float64) d.precision = Precision::of_double();
  else if (p.storage == p.accumulate && p.storage == NumberFormat::float32) d.precision = Precision::of_float();
  else d.precision = p;
  return d;
}

}  // namespace attn::grader
