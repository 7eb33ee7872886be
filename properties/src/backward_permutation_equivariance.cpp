// Permutation equivariance (section 32.2.5), differentiated: the loss
// L = sum_il dO_il O_il is unchanged when the query rows of Q, dO and the
// mask are permuted together, and when the rows of K and V and the mask's
// columns are; so permuting the queries permutes the rows of dQ, and
// permuting the keys permutes the rows of dK and dV. No input is rounded,
// so each entry may differ by both answers' bounds only.
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "backward_check.hpp"

namespace attn::prop {

Property backward_permutation_equivariance() {
  Property p;
  p.id = "backward_permutation_equivariance";
  p.kind = PropertyKind::metamorphic;
  p.hint = {"reordering queries or keys changes the gradients",
            "Permuting the rows of Q and dO permutes dQ's rows; permuting K, V and the mask's "
            "columns permutes dK's and dV's rows. Look for an index that mixes rows and "
            "columns.",
            "permutation equivariance, section 32.2.5, differentiated"};
  p.title = "permuting the queries (Q, dO) permutes dQ's rows; permuting the keys (K, V) permutes "
            "dK's and dV's rows";
  p.source = "permutation equivariance, section 32.2.5, differentiated";
  p.op = Operation::attention_backward;
  p.generator = [](const GenConfig& cfg) {
    return with_params(gen_case(cfg, MaskPolicy::any),
                       [](const Case& c) { return std::size_t(c.Q.rows() + c.K.rows()); },
                       integer_values(100));
  };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Index T_q = c.Q.rows(), T_v = c.K.rows();
    const std::vector<double> keys_q(c.params.begin(), c.params.begin() + T_q);
    const std::vector<double> keys_k(c.params.begin() + T_q, c.params.end());
    const std::vector<Index> sigma = detail::argsort(keys_q), pi = detail::argsort(keys_k);
    // Query i of the permuted case is query sigma[i] of the original; key j is key pi[j].
    Case permuted = c;
    for (Index i = 0; i < T_q; ++i) {
      permuted.Q.row(i) = c.Q.row(sigma[std::size_t(i)]);
      permuted.dO.row(i) = c.dO.row(sigma[std::size_t(i)]);
      if (c.mask)
        for (Index j = 0; j < T_v; ++j)
          (*permuted.mask)(i, j) = (*c.mask)(sigma[std::size_t(i)], pi[std::size_t(j)]);
    }
    for (Index j = 0; j < T_v; ++j) {
      permuted.K.row(j) = c.K.row(pi[std::size_t(j)]);
      permuted.V.row(j) = c.V.row(pi[std::size_t(j)]);
    }
    const std::string what = "rows of Q and dO permuted by " + detail::perm_text(sigma) +
                             ", keys and values by " + detail::perm_text(pi);
    return detail::check_related_gradients(s, c, permuted, sigma, pi, what);
  };
  return p;
}

}  // namespace attn::prop
