// Permutation equivariance (section 32.2.5): the scores depend only on the
// rows' contents, so permuting the rows of Q permutes the rows of O and A,
// and permuting the rows of K and V together (with the mask's columns)
// permutes the columns of A and leaves O unchanged.
#include <sstream>

#include "attn/prop/catalog.hpp"
#include "attn/prop/generators.hpp"
#include "check_util.hpp"

namespace attn::prop {

Property permutation_equivariance(Operation op) {
  Property p;
  p.id = "permutation_equivariance";
  p.kind = PropertyKind::metamorphic;
  p.hint = {"reordering queries or keys changes the answer",
            "Attention has no notion of position: permuting the rows of Q permutes the rows of "
            "O, and permuting K, V and the mask's columns together leaves O unchanged. Look "
            "for an index that mixes rows and columns, or a mask applied by position.",
            "section 32.2.5"};
  p.title = "permuting Q's rows permutes O's rows; permuting K, V and the mask's columns together leaves O unchanged";
  p.source = "permutation equivariance, section 32.2.5";
  p.op = op;
  p.generator = [](const GenConfig& cfg) {
    return with_params(gen_case(cfg, MaskPolicy::any),
                       [](const Case& c) { return std::size_t(detail::T_q(c) + detail::T_v(c)); },
                       integer_values(100));
  };
  p.check = [](Subject& s, const Case& c) -> std::optional<Failure> {
    const Index T_q = detail::T_q(c), T_v = detail::T_v(c);
    const std::vector<double> keys_q(c.params.begin(), c.params.begin() + T_q);
    const std::vector<double> keys_k(c.params.begin() + T_q, c.params.end());
    const std::vector<Index> sigma = detail::argsort(keys_q), pi = detail::argsort(keys_k);
    Case permuted = c;
    // Row i of the permuted case is row sigma[i] of the original; key j is key pi[j].
    for (Index i = 0; i < T_q; ++i) {
      if (takes_qkv(c.op)) permuted.Q.row(i) = c.Q.row(sigma[std::size_t(i)]);
      for (Index j = 0; j < T_v; ++j) {
        if (!takes_qkv(c.op)) permuted.S(i, j) = c.S(sigma[std::size_t(i)], pi[std::size_t(j)]);
        if (c.mask) (*permuted.mask)(i, j) = (*c.mask)(sigma[std::size_t(i)], pi[std::size_t(j)]);
      }
    }
    if (takes_qkv(c.op))
      for (Index j = 0; j < T_v; ++j) {
        permuted.K.row(j) = c.K.row(pi[std::size_t(j)]);
        permuted.V.row(j) = c.V.row(pi[std::size_t(j)]);
      }
    const std::string what = "rows of Q permuted by " + detail::perm_text(sigma) +
                             ", keys and values by " + detail::perm_text(pi);
    return detail::check_related(s, c, permuted, {sigma, pi}, {sigma, {}}, what);
  };
  return p;
}

}  // namespace attn::prop
