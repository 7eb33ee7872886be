#pragma once
// The in-process zoo: correct attention implementations that differ only in
// the order and form of their arithmetic, each inside the class of
// algorithms the error bound is derived for (reference/TOLERANCE.md, "The
// class of algorithms"). The deep run (`attnlab_deep_run --zoo`) holds every
// member, in float and in double, to the kernel properties; the margin the
// bound keeps is that every member stays at or below half of it
// (TOLERANCE.md, "The safety factor"). Test support only: not installed.
//
// Every member computes O = softmax(Q K^T / sqrt(d_k), masked) V
// (section 32.2.2, Lemma 2 of 32.2.4) entirely in its scalar T (float or
// double; member "long_double" in long double, rounded to T at the end):
// forbidden logits are -inf before the maximum and the exponential, the
// maximum is over the allowed keys, a forbidden weight is exactly 0.0.

#include <optional>
#include <string>
#include <vector>

#include "attn/matrix.hpp"
#include "attn/prop/kernel_subject.hpp"
#include "attn/ref/number_format.hpp"

namespace attn::prop::testing {

/// How a member forms its d_k-term dot products (step (1) of TOLERANCE.md).
enum class ZooDot {
  loop,          ///< sum_r Q_ir K_jr left to right, then / sqrt(d_k)
  fma,           ///< the same with std::fma (also in the sums of A V)
  scale_q_first  ///< Q_ir * (1 / sqrt(d_k)) first, then the dot product
};
/// How a member adds Z = sum_j p_j and o_il = sum_j A_ij V_jl (steps (4), (6)).
enum class ZooSum {
  left,      ///< left to right
  kahan,     ///< Kahan's compensated summation
  pairwise,  ///< recursive halving
  sorted,    ///< terms sorted by increasing magnitude, then left to right
  eigen      ///< Eigen's vectorised reduction (.sum())
};
/// How a member forms the weights A from p_j = exp(s_j - m) (steps (5), (5L)).
enum class ZooWeights {
  divide,       ///< p_j / Z
  reciprocal,   ///< p_j * (1 / Z)
  logsumexp,    ///< exp(s_j - (m + log Z))
  log_softmax   ///< exp((s_j - m) - log Z)
};

/// One member: a name, what it does, and its order of arithmetic.
struct ZooMember {
  std::string name;
  std::string what;
  ZooDot dot = ZooDot::loop;
  ZooSum sum = ZooSum::left;
  ZooWeights weights = ZooWeights::divide;
  /// > 0: online softmax over key tiles of this many keys (FlashAttention,
  /// Dao et al. 2022, Algorithm 1: running max, running sum, rescaled
  /// accumulator, final division; A = exp(s - m_final) / l_final).
  int tile = 0;
  bool long_double = false;  ///< every step in long double, rounded to T at the end
  bool eigen_exp = false;    ///< Eigen's .array().exp() on the whole row, forbidden selected to 0 after
  bool deferred = false;     ///< O = (P V) / Z instead of A V
  /// Properties the member may fail outside the range where it is correct
  /// (the logsumexp form exp(s - (m + log Z)) loses log Z once |lse| u
  /// nears 1/4, reference/TOLERANCE.md (5L): the fixed edge rows at -2e20
  /// in double and -2e9 in float get the weights 1 and 1).
  std::vector<std::string> may_fail = {};
};

/// The members, in report order (16 of them).
const std::vector<ZooMember>& zoo_members();
/// The member named `name`, or nullptr.
const ZooMember* find_zoo_member(const std::string& name);

/// O (T_q x d_v) and A (T_q x T_v) of one member.
template <class T>
struct ZooResult {
  Matrix<T> O, A;
};

/// Member `m`'s attention of Q (T_q x d_k), K (T_v x d_k), V (T_v x d_v) and
/// mask (T_q x T_v, true = forbidden; nullopt: none), T float or double.
/// With `storage` (float16 or bfloat16, T float: the member's 16-bit twin),
/// the weights that multiply V and the returned A and O are rounded to the
/// storage type (reference/TOLERANCE.md, "Storage and accumulation types";
/// the arithmetic stays the member's, in T).
/// Throws std::invalid_argument for shapes that do not fit (d_k, T_v, the
/// mask's shape) or d_k = 0; std::domain_error for NaN or Inf in Q, K or V,
/// a fully forbidden row, and the rule for logits (docs/ARCHITECTURE.md,
/// "lib/"): an allowed logit that overflows T to +Inf, or a row whose every
/// allowed logit overflows to -Inf.
template <class T>
ZooResult<T> zoo_attention(const ZooMember& m, const Matrix<T>& Q, const Matrix<T>& K,
                           const Matrix<T>& V, const std::optional<Mask>& mask,
                           std::optional<attn::ref::NumberFormat> storage = std::nullopt);

/// Member `m` in T as a Subject for Operation::attention (kernel_subject),
/// named "zoo/<name>", declaring float or double.
template <class T>
KernelSubject zoo_subject(const ZooMember& m);

/// Member `m`'s 16-bit twin as a Subject for Operation::attention, named
/// "zoo/<name>/<storage>": float32 arithmetic in the member's order, inputs
/// and answers in `storage`, declaring Precision::of(storage) (float32
/// accumulation). Throws std::invalid_argument unless `storage` is a type
/// accumulated in float32 by default (float16, bfloat16).
KernelSubject zoo_subject_stored(const ZooMember& m, attn::ref::NumberFormat storage);

}  // namespace attn::prop::testing
