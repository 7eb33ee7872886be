#pragma once
// A Subject answers Cases: the library itself, a mutant, or a submission in
// its own process (docs/ARCHITECTURE.md, "Data flow"). Properties are written once,
// against this interface.

#include <string>

#include "attn/prop/case.hpp"
#include "attn/prop/outcome.hpp"

namespace attn::prop {

/// The precision a subject declares; the error-bound model is evaluated for it.
struct Precision {
  /// Unit roundoff u: 2^-24 for float, 2^-53 for double.
  double unit_roundoff = 0x1p-53;
  /// Name for reports ("float", "double").
  std::string name = "double";
  /// Generators round every input to this type, so inputs are exact for the subject.
  bool is_float = false;

  static Precision of_float() { return {0x1p-24, "float", true}; }
  static Precision of_double() { return {0x1p-53, "double", false}; }
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
