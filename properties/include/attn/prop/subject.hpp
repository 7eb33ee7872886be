#pragma once
// A Subject answers Cases: the library itself, a mutant, or a submission in
// its own process (docs/ARCHITECTURE.md, "Data flow"). Properties are written once,
// against this interface.

#include <optional>
#include <string>

#include "attn/ref/precision_model.hpp"
#include "attn/ref/number_format.hpp"

#include "attn/prop/case.hpp"
#include "attn/prop/outcome.hpp"

namespace attn::prop {

using ref::NumberFormat;

/// The precision a subject declares; the error-bound model is evaluated for
/// it (reference/TOLERANCE.md, "Storage and accumulation types").
/// `storage`: the type of the inputs (the generators make only values exact
/// in it), the weights P before P V, and the returned A and O.
/// `accumulate`: the type of the logits, the row maximum, the exponentials,
/// the sums and logsumexp; it covers the storage type (ref::format_covers).
struct Precision {
  NumberFormat storage = NumberFormat::float64;
  NumberFormat accumulate = NumberFormat::float64;
  /// Name for reports: the C++ type for the two presets ("float",
  /// "double": ref::FormatInfo::cpp_type); otherwise "float16" or
  /// "bfloat16 (accumulating in float32)".
  std::string name = ref::format_info(NumberFormat::float64).cpp_type;

  /// The presets: one C++ type, float or double, for storage and arithmetic.
  template <class T>
  static Precision of_type() {
    constexpr NumberFormat f = ref::format_of<T>();
    return {f, f, ref::format_info(f).cpp_type};
  }
  static Precision of_float() { return of_type<float>(); }
  static Precision of_double() { return of_type<double>(); }
  /// Storage `s`, accumulation `a` (default: float32 for float16 and
  /// bfloat16, else `s`, as FlashAttention computes). Throws
  /// std::invalid_argument if `a` does not cover `s` (bfloat16 storage with
  /// float16 accumulation, any narrower accumulation).
  static Precision of(NumberFormat s, std::optional<NumberFormat> a = std::nullopt);
  /// The default accumulation type of a storage type.
  static NumberFormat default_accumulate(NumberFormat s) { return ref::format_info(s).default_accumulate; }
  /// Largest finite value of the storage type (inputs must stay below it).
  double largest_finite() const { return ref::format_largest_finite(storage); }
  /// x rounded to the storage type.
  double round(double x) const { return ref::round_to_format(storage, x); }
  /// The bound model for this precision.
  ref::PrecisionModel model() const { return ref::PrecisionModel::for_formats(storage, accumulate); }
};

class Subject {
 public:
  virtual ~Subject() = default;
  /// For reports: "attn::attention<double>", "solutions/F3/attention.py".
  virtual std::string name() const = 0;
  virtual Precision precision() const = 0;
  virtual bool supports(Operation op) const = 0;
  /// False for a kernel that returns O only (no weights A): the properties
  /// about A are then skipped and the rest check O.
  virtual bool returns_weights() const { return true; }
  /// Answers one case. Must not throw: errors of the subject become
  /// refusals, errors of the transport become faults.
  virtual Outcome run(const Case& c) = 0;
};

}  // namespace attn::prop
