// Properties: attention by itself has no notion of position, and the
// positional encoding X~_t = X_t + p_t is what gives it one (section 32.2.5).
//
//  1. Equivariance: self-attention of X (Q = X W_Q, K = X W_K, V = X W_V) with
//     the rows of X permuted, (pi X)_t = X_{pi(t)}, and the mask permuted the same
//     way on both sides, M'(t, s) = M(pi(t), pi(s)), gives O'_t = O_{pi(t)}.
//  2. The encoding breaks it: with Z = X + P (P = sinusoidal_positional_encoding)
//     and Z' = pi X + P, the output O' of Z' is not pi O: checked for every
//     non-identity pi on random tokens and on all-equal tokens.
//     Here W_Q = W_K = W_V = I (Q = K = V = Z), so no projection can hide the
//     positions: with W_Q = 0, say, every row would attend uniformly and output the
//     mean of all tokens, which no reordering changes. No mask either (a causal
//     mask alone already sees order).
// The bound in both: O'_t and O_{pi(t)} approximate the same exact value in case
// 1, so |O'_t - O_{pi(t)}| <= E'_t + E_{pi(t)} with E the a-priori bound of
// head_output_bound (lib_prop_support.hpp) times the safety factor; case 2 asserts
// that some entry differs by more than that sum.
// Regimes: the identity permutation is discarded in 2 (RC_PRE) and tagged in 1;
// rows of X that tie under pi (pi X == X, e.g. all tokens equal) are tagged: in 1
// they leave nothing to permute but the mask, in 2 they are the telling case
// (equal tokens told apart by position alone).
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include "lib_prop_support.hpp"

using namespace attn::libprop;
using attn::Index;

namespace {

DMatrix permute_rows(const DMatrix& X, const std::vector<Index>& perm) {
  DMatrix Y(X.rows(), X.cols());
  for (Index t = 0; t < X.rows(); ++t) Y.row(t) = X.row(perm[std::size_t(t)]);
  return Y;
}

bool is_identity(const std::vector<Index>& perm) {
  for (std::size_t t = 0; t < perm.size(); ++t)
    if (perm[t] != Index(t)) return false;
  return true;
}

/// Largest |O'_t,l - O_{pi(t),l}| - bound_t,l, and where (worst excess first).
struct Gap {
  double excess = -std::numeric_limits<double>::infinity();
  Index t = -1, l = -1;
  double diff = 0, bound = 0;
};

Gap largest_gap(const DMatrix& O_perm, const DMatrix& O, const DMatrix& E_perm, const DMatrix& E,
                const std::vector<Index>& perm) {
  Gap g;
  for (Index t = 0; t < O.rows(); ++t)
    for (Index l = 0; l < O.cols(); ++l) {
      const Index pt = perm[std::size_t(t)];
      const double diff = std::abs(O_perm(t, l) - O(pt, l));
      const double bound = attn::ref::kSafetyFactor * (E_perm(t, l) + E(pt, l));
      if (std::isnan(diff) || diff - bound > g.excess) {
        g = {std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff - bound, t, l, diff,
             bound};
      }
    }
  return g;
}

std::string show_permutation(const std::vector<Index>& perm) {
  std::ostringstream os;
  os << "[";
  for (std::size_t t = 0; t < perm.size(); ++t) os << (t ? " " : "") << perm[t];
  os << "] (row t of pi X is row pi[t] of X)";
  return os.str();
}

std::string describe_gap(const Gap& g) {
  std::ostringstream os;
  os.precision(17);
  os << "row " << g.t << ", column " << g.l << ": |O'_t - O_pi(t)| = " << g.diff
     << ", bound " << g.bound;
  return os.str();
}

}  // namespace

TEMPLATE_TEST_CASE("attention without positions is permutation-equivariant in X (32.2.5)",
                   "[lib][positional][permutation]", float, double) {
  using T = TestType;
  rc::prop("attention(pi X W_Q, pi X W_K, pi X W_V, pi M pi^T) rows == rows of O permuted", [] {
    const Index T_len = draw_size(8), d_model = draw_size(8), d_k = draw_size(8),
                d_v = draw_size(8);
    const Values v = draw_values(std::is_same_v<T, double>);
    const int s = int(*rc::gen::inRange(0, 4));
    const DMatrix X = draw_matrix(T_len, d_model, v);
    const DMatrix W_Q = draw_matrix(d_model, d_k, v, s), W_K = draw_matrix(d_model, d_k, v, s),
                  W_V = draw_matrix(d_model, d_v, v, s);
    const std::optional<attn::Mask> mask = draw_mask(T_len, T_len);
    const std::vector<Index> perm = draw_permutation(T_len);
    const DMatrix Xp = permute_rows(X, perm);
    std::optional<attn::Mask> mask_p;
    if (mask) {
      attn::Mask M(T_len, T_len);
      for (Index t = 0; t < T_len; ++t)
        for (Index u = 0; u < T_len; ++u) M(t, u) = (*mask)(perm[std::size_t(t)], perm[std::size_t(u)]);
      mask_p = M;
    }
    log_inputs(X, {{{W_Q, W_K, W_V}}, DMatrix()}, mask);
    RC_LOG() << "pi = " << show_permutation(perm) << "\n";
    RC_CLASSIFY(is_identity(perm), "permutation: identity");
    RC_CLASSIFY(!is_identity(perm) && Xp == X, "rows of X tie under pi");

    const auto run = [&](const DMatrix& In, const std::optional<attn::Mask>& M) {
      return to_double<T>(attention_of_projections<T>(to_type<T>(In), to_type<T>(W_Q),
                                                      to_type<T>(W_K), to_type<T>(W_V), M)
                              .O);
    };
    const DMatrix O = run(X, mask), O_p = run(Xp, mask_p);
    const Precision p = precision_of<T>();
    const DMatrix E = head_output_bound(X, X, W_Q, W_K, W_V, mask, p).E;
    const DMatrix E_p = head_output_bound(Xp, Xp, W_Q, W_K, W_V, mask_p, p).E;
    RC_ASSERT(E.allFinite());  // an infinite bound would make the check vacuous
    RC_ASSERT(E_p.allFinite());
    const Gap g = largest_gap(O_p, O, E_p, E, perm);
    if (g.excess > 0) RC_LOG() << describe_gap(g) << "\n";
    RC_ASSERT(g.excess <= 0);
  });
}

TEMPLATE_TEST_CASE("adding the positional encoding breaks permutation equivariance (32.2.5)",
                   "[lib][positional][permutation]", float, double) {
  using T = TestType;
  rc::prop("for pi != identity some row of attention(pi X + P) is not the row pi(t) of attention(X + P)",
           [] {
             const Index T_len = draw_size_from(2, 8), d_model = draw_size(8);
             const std::vector<Index> perm = draw_permutation(T_len);
             RC_PRE(!is_identity(perm));
             // Tokens in [-1/2, 1/2] (k / 2^18, exact in float), or all equal.
             const bool all_equal = *rc::gen::arbitrary<bool>();
             RC_TAG(all_equal ? "tokens: all equal" : "tokens: random");
             DMatrix X = draw_matrix(T_len, d_model, Values::grid, 2);
             if (all_equal)
               for (Index t = 1; t < T_len; ++t) X.row(t) = X.row(0);
             const DMatrix Xp = permute_rows(X, perm);
             RC_CLASSIFY(Xp == X, "rows of X tie under pi");
             RC_LOG() << "X =\n" << show_matrix(X) << "\npi = " << show_permutation(perm) << "\n";

             const attn::Matrix<T> P = attn::sinusoidal_positional_encoding<T>(T_len, d_model);
             // Z = fl(X + P) is the input; the bound treats it as exact data.
             const attn::Matrix<T> Z = to_type<T>(X) + P, Z_p = to_type<T>(Xp) + P;
             const attn::Matrix<T> I = attn::Matrix<T>::Identity(d_model, d_model);
             const DMatrix O = to_double<T>(attention_of_projections<T>(Z, I, I, I, std::nullopt).O);
             const DMatrix O_p =
                 to_double<T>(attention_of_projections<T>(Z_p, I, I, I, std::nullopt).O);
             const Precision p = precision_of<T>();
             const DMatrix Id = DMatrix::Identity(d_model, d_model);
             const DMatrix E =
                 head_output_bound(to_double<T>(Z), to_double<T>(Z), Id, Id, Id, std::nullopt, p).E;
             const DMatrix E_p =
                 head_output_bound(to_double<T>(Z_p), to_double<T>(Z_p), Id, Id, Id, std::nullopt, p)
                     .E;
             const Gap g = largest_gap(O_p, O, E_p, E, perm);
             RC_LOG() << "largest difference: " << describe_gap(g) << "\n";
             RC_ASSERT(g.excess > 0);
           });
}
