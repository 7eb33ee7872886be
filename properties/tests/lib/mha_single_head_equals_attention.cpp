// Property: multi-head attention with one head is single-head attention
// (section 32.2.5). With h = 1 the concatenation [O_1] is O_1 itself, and with
// W_O = I_{d_v} the output projection leaves it alone, so
//   multi_head_attention(X, {W_Q, W_K, W_V}, I, mask) == attention(X W_Q, X W_K, X W_V, mask).O.
//
// Compared bit-exactly (operator==, so only the sign of a zero may differ):
// both sides form the projections as the same Eigen products of the same
// shapes and call the same attention; the product with the identity adds only
// exact zeros (x * 1 + sum of 0 * y is x for finite x, also with FMA). Any
// difference therefore means the library does something else than the
// definition: a wrong projection, a transposed weight, a head that sees
// another mask.
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include "lib_prop_support.hpp"

using namespace attn::libprop;
using attn::Index;

TEMPLATE_TEST_CASE("mha with h = 1 and W_O = I equals attention of the projections (32.2.5)",
                   "[lib][multi_head]", float, double) {
  using T = TestType;
  rc::prop("multi_head_attention(X, one head, I, mask) == attention(X W_Q, X W_K, X W_V, mask).O",
           [] {
             const Index T_len = draw_size(8), d_model = draw_size(8);
             const Index d_k = draw_size(8), d_v = draw_size(8);
             RC_CLASSIFY(T_len == 1, "shape: T = 1");
             const Values v = draw_values(std::is_same_v<T, double>);
             // Weights scaled by 2^-s: s = 0 saturates the softmax, s = 3 makes it nearly uniform.
             const int s = int(*rc::gen::inRange(0, 4));
             const DMatrix X = draw_matrix(T_len, d_model, v);
             const DMatrix W_Q = draw_matrix(d_model, d_k, v, s);
             const DMatrix W_K = draw_matrix(d_model, d_k, v, s);
             const DMatrix W_V = draw_matrix(d_model, d_v, v, s);
             const std::optional<attn::Mask> mask = draw_mask(T_len, T_len);
             log_inputs(X, {{{W_Q, W_K, W_V}}, DMatrix::Identity(d_v, d_v)}, mask);

             attn::MultiHeadWeights<T> w;
             w.heads.push_back({to_type<T>(W_Q), to_type<T>(W_K), to_type<T>(W_V)});
             w.W_O = attn::Matrix<T>::Identity(d_v, d_v);
             const attn::Matrix<T> Xt = to_type<T>(X);
             const attn::Matrix<T> O_mha = attn::multi_head_attention<T>(Xt, w, mask);
             const attn::Matrix<T> O_att =
                 attention_of_projections<T>(Xt, w.heads[0].W_Q, w.heads[0].W_K, w.heads[0].W_V,
                                             mask)
                     .O;
             const std::string diff = first_difference(O_mha, O_att);
             if (!diff.empty()) RC_LOG() << "multi_head_attention vs attention: " << diff << "\n";
             RC_ASSERT(diff.empty());
           });
}
