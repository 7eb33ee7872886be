// KernelSubject: a function as a Subject; what it throws is a refusal.
#include "attn/prop/kernel_subject.hpp"

#include <cstdlib>
#include <exception>
#include <memory>
#include <typeinfo>

#include <cxxabi.h>

namespace attn::prop {
namespace {

/// "std::invalid_argument" for typeid(e).name() (the Itanium C++ ABI's
/// demangler, GCC and Clang); the mangled name if it cannot be demangled.
std::string type_name(const std::type_info& t) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(t.name(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(t.name());
}

}  // namespace

KernelSubject::KernelSubject(std::string name, Precision precision, bool returns_weights, Answer answer)
    : name_(std::move(name)),
      precision_(std::move(precision)),
      returns_weights_(returns_weights),
      answer_(std::move(answer)) {}

Outcome KernelSubject::run(const Case& c) {
  try {
    return answer_(c);
  } catch (const std::exception& e) {
    return Outcome::make_refusal(type_name(typeid(e)), e.what());
  } catch (...) {
    const std::type_info* t = abi::__cxa_current_exception_type();
    return Outcome::make_refusal(t ? type_name(*t) : std::string("unknown"),
                                 "an exception not derived from std::exception");
  }
}

}  // namespace attn::prop
