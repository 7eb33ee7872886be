#pragma once
// A plain attention function as a Subject, so checking it needs no Subject
// class (examples/own_kernel/check_my_kernel.cpp):
//
//   auto kernel = attn::prop::kernel_subject<float>("my_attention",
//       [](const auto& Q, const auto& K, const auto& V, const auto& mask) {
//         return my_attention(Q, K, V, mask);
//       });
//   return attn::prop::check_kernel_main(argc, argv, kernel);
//
// (<float>: the scalar of the matrices the kernel is called with; double
// when not given.)

#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include "attn/matrix.hpp"
#include "attn/prop/outcome.hpp"
#include "attn/prop/subject.hpp"

namespace attn::prop {

/// A Subject for Operation::attention that answers each case with a
/// function (built by kernel_subject). The function gets the case's Q
/// (T_q x d_k), K (T_v x d_k), V (T_v x d_v) and mask and returns the
/// outcome; it may throw: whatever it throws is a refusal (the exception's
/// type and what()), never a crash of the check.
class KernelSubject : public Subject {
 public:
  using Answer = std::function<Outcome(const Case&)>;
  KernelSubject(std::string name, Precision precision, bool returns_weights, Answer answer);

  std::string name() const override { return name_; }
  Precision precision() const override { return precision_; }
  bool supports(Operation op) const override { return op == Operation::attention; }
  bool returns_weights() const override { return returns_weights_; }
  /// Calls the function; an exception becomes Outcome::make_refusal with its
  /// demangled type ("std::invalid_argument") and message.
  Outcome run(const Case& c) override;

 private:
  std::string name_;
  Precision precision_;
  bool returns_weights_;
  Answer answer_;
};

namespace detail {

template <class T>
concept EigenDense = std::is_base_of_v<Eigen::EigenBase<std::remove_cvref_t<T>>, std::remove_cvref_t<T>>;

template <class R>
concept HasOandA = requires(const R& r) {
  { r.O } -> EigenDense;
  { r.A } -> EigenDense;
};

template <class R>
concept PairOfDense = requires(const R& r) {
  { std::get<0>(r) } -> EigenDense;
  { std::get<1>(r) } -> EigenDense;
};

template <class M>
DMatrix to_double(const M& m) {
  return m.template cast<double>();
}

}  // namespace detail

/// Wraps `fn` as a Subject for Operation::attention, named `name` in
/// reports and held to the error bound of `precision`.
///
/// `fn(Q, K, V, mask)` is called with Q, K, V as `const attn::Matrix<Scalar>&`
/// (row-major Eigen; an `Eigen::MatrixXf` parameter binds too, as a copy)
/// and mask as `const std::optional<attn::Mask>&` (T_q x T_v, true =
/// forbidden; nullopt: no mask). It returns O (any Eigen matrix, T_q x d_v),
/// or O and A (T_q x T_v) as a std::pair / std::tuple or a struct with
/// members O and A (attn::AttentionResult). With O only, the properties
/// about A are skipped and the rest check O. What it throws is a refusal:
/// a fully forbidden row, a shape mismatch and NaN/Inf inputs must be
/// refused (kernel_properties() checks it), with any exception type.
///
/// Scalar (float or double; double when not given) is the type the inputs
/// are converted to, exactly: the generators make inputs representable in
/// the declared precision.
template <class Scalar = double, class Fn>
KernelSubject kernel_subject(std::string name, Precision precision, Fn fn) {
  using T = Scalar;
  using Result = std::invoke_result_t<Fn&, const Matrix<T>&, const Matrix<T>&, const Matrix<T>&,
                                      const std::optional<Mask>&>;
  constexpr bool o_only = detail::EigenDense<Result>;
  static_assert(o_only || detail::HasOandA<Result> || detail::PairOfDense<Result>,
                "kernel_subject: the kernel must return O (an Eigen matrix), a pair/tuple (O, A) "
                "or a struct with members O and A");
  auto answer = [fn = std::move(fn)](const Case& c) mutable -> Outcome {
    const Matrix<T> Q = c.Q.template cast<T>(), K = c.K.template cast<T>(), V = c.V.template cast<T>();
    const Result r = fn(Q, K, V, c.mask);
    if constexpr (detail::EigenDense<Result>) {
      return Outcome::make_result(detail::to_double(r), DMatrix());
    } else if constexpr (detail::HasOandA<Result>) {
      return Outcome::make_result(detail::to_double(r.O), detail::to_double(r.A));
    } else {
      return Outcome::make_result(detail::to_double(std::get<0>(r)), detail::to_double(std::get<1>(r)));
    }
  };
  return KernelSubject(std::move(name), std::move(precision), !o_only, std::move(answer));
}

/// As above, with the precision of Scalar (float: Precision::of_float(),
/// double: Precision::of_double()).
template <class Scalar = double, class Fn>
KernelSubject kernel_subject(std::string name, Fn fn) {
  using T = Scalar;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "kernel_subject: give the precision for a scalar other than float or double");
  return kernel_subject<T>(std::move(name),
                           std::is_same_v<T, float> ? Precision::of_float() : Precision::of_double(),
                           std::move(fn));
}

}  // namespace attn::prop
