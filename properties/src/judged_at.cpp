// A failure judged again at a narrower precision (property.hpp,
// holds_at_precision).
#include <exception>

#include "attn/prop/property.hpp"
#include "check_util.hpp"

namespace attn::prop {
namespace {

/// `inner` as it answers, but declaring `precision`: every bound a property
/// computes from Subject::precision() is then that precision's.
class DeclaredAs final : public Subject {
 public:
  DeclaredAs(Subject& inner, Precision precision) : inner_(inner), precision_(std::move(precision)) {}
  std::string name() const override { return inner_.name(); }
  Precision precision() const override { return precision_; }
  bool supports(Operation op) const override { return inner_.supports(op); }
  bool returns_weights() const override { return inner_.returns_weights(); }
  Outcome run(const Case& c) override { return inner_.run(c); }

 private:
  Subject& inner_;
  Precision precision_;
};

}  // namespace

bool holds_at_precision(const Property& p, Subject& s, const Case& c, const Precision& precision) {
  DeclaredAs declared(s, precision);
  detail::clear_left_mark();
  bool holds = false;
  try {
    holds = !p.check(declared, c) && !detail::left_mark();
  } catch (const std::exception&) {
    holds = false;
  }
  detail::clear_left_mark();
  return holds;
}

}  // namespace attn::prop
