// exercise: F3
// expect-exit: 1
// expect-text: NOT GRADABLE
// args: --compile-timeout 20
// Hostile: a template instantiated recursively to a huge depth; the
// compiler gives up (or its time limit ends it): not gradable, quickly.
#include "attention.hpp"

template <int N>
struct Boom {
  static constexpr long value = Boom<N - 1>::value + Boom<N - 2>::value;
};
template <>
struct Boom<0> {
  static constexpr long value = 0;
};
template <>
struct Boom<1> {
  static constexpr long value = 1;
};

namespace f3 {
AttentionResult attention(const Matrix&, const Matrix&, const Matrix&, const std::optional<Mask>&) {
  return {Matrix::Constant(1, 1, double(Boom<100000>::value)), Matrix()};
}
}  // namespace f3
