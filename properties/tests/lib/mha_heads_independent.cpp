// Properties: the heads of multi-head attention are independent and
// concatenated in order (section 32.2.5: every head computes its O_i on its
// own projections X W_Q^i, X W_K^i, X W_V^i; O = [O_1, ..., O_h] W_O).
// With W_O = I_{h d_v} the output is the concatenation itself, so
//  - head i occupies columns [i d_v, (i+1) d_v) and equals
//    attention(X W_Q^i, X W_K^i, X W_V^i, mask).O, for every i, in order;
//  - changing one head's weights (W_Q, W_K, W_V, even its d_k) leaves every
//    other head's column block unchanged.
// Both bit-exact (operator==): the product with the identity adds only exact
// zeros, and a head's output depends on nothing but X, its weights and the mask.
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include "lib_prop_support.hpp"

using namespace attn::libprop;
using attn::Index;

namespace {

/// h heads with their own d_k (1..4) and a common d_v, on the regime v.
ref::MultiHeadWeights draw_heads(Index h, Index d_model, Index d_v, Values v, int s) {
  ref::MultiHeadWeights w;
  for (Index i = 0; i < h; ++i) {
    const Index d_k = draw_size(4);
    w.heads.push_back({draw_matrix(d_model, d_k, v, s), draw_matrix(d_model, d_k, v, s),
                       draw_matrix(d_model, d_v, v, s)});
  }
  w.W_O = DMatrix::Identity(h * d_v, h * d_v);
  return w;
}

}  // namespace

TEMPLATE_TEST_CASE("mha heads are concatenated in order: head i in columns i d_v to (i+1) d_v - 1",
                   "[lib][multi_head]", float, double) {
  using T = TestType;
  rc::prop("with W_O = I the block of head i is attention(X W_Q^i, X W_K^i, X W_V^i, mask).O",
           [] {
             const Index h = draw_size(4), T_len = draw_size(8), d_model = draw_size(8);
             const Index d_v = draw_size(4);
             RC_TAG("heads: h = " + std::to_string(h));
             const Values v = draw_values(std::is_same_v<T, double>);
             const int s = int(*rc::gen::inRange(0, 4));
             const DMatrix X = draw_matrix(T_len, d_model, v);
             const ref::MultiHeadWeights wd = draw_heads(h, d_model, d_v, v, s);
             const std::optional<attn::Mask> mask = draw_mask(T_len, T_len);
             log_inputs(X, wd, mask);

             const attn::MultiHeadWeights<T> w = to_lib_weights<T>(wd);
             const attn::Matrix<T> Xt = to_type<T>(X);
             const attn::Matrix<T> O = attn::multi_head_attention<T>(Xt, w, mask);
             RC_ASSERT(O.rows() == T_len);
             RC_ASSERT(O.cols() == h * d_v);
             for (Index i = 0; i < h; ++i) {
               const auto& hw = w.heads[std::size_t(i)];
               const attn::Matrix<T> O_i =
                   attention_of_projections<T>(Xt, hw.W_Q, hw.W_K, hw.W_V, mask).O;
               const attn::Matrix<T> block = O.middleCols(i * d_v, d_v);
               const std::string diff = first_difference(block, O_i);
               if (!diff.empty())
                 RC_LOG() << "columns of head " << i << " vs its own attention: " << diff << "\n";
               RC_ASSERT(diff.empty());
             }
           });
}

TEMPLATE_TEST_CASE("mha changing one head leaves the other heads' columns unchanged",
                   "[lib][multi_head]", float, double) {
  using T = TestType;
  rc::prop("new weights for head k change no column outside [k d_v, (k+1) d_v)", [] {
    const Index h = draw_size_from(2, 4);
    const Index T_len = draw_size(8), d_model = draw_size(8), d_v = draw_size(4);
    RC_TAG("heads: h = " + std::to_string(h));
    const Values v = draw_values(std::is_same_v<T, double>);
    const int s = int(*rc::gen::inRange(0, 4));
    const DMatrix X = draw_matrix(T_len, d_model, v);
    const ref::MultiHeadWeights wd = draw_heads(h, d_model, d_v, v, s);
    const std::optional<attn::Mask> mask = draw_mask(T_len, T_len);
    // Head k gets fresh weights (and its own, possibly different, d_k).
    const Index k = *rc::gen::inRange<Index>(0, h);
    ref::MultiHeadWeights wd2 = wd;
    const Index d_k2 = draw_size(4);
    wd2.heads[std::size_t(k)] = {draw_matrix(d_model, d_k2, v, s),
                                 draw_matrix(d_model, d_k2, v, s), draw_matrix(d_model, d_v, v, s)};
    log_inputs(X, wd, mask);
    RC_LOG() << "head " << k << " changed to:\n";
    log_inputs(X, {{wd2.heads[std::size_t(k)]}, DMatrix()}, std::nullopt);

    const attn::Matrix<T> Xt = to_type<T>(X);
    const attn::Matrix<T> O1 = attn::multi_head_attention<T>(Xt, to_lib_weights<T>(wd), mask);
    const attn::Matrix<T> O2 = attn::multi_head_attention<T>(Xt, to_lib_weights<T>(wd2), mask);
    RC_ASSERT(O1.cols() == h * d_v);
    RC_ASSERT(O2.cols() == h * d_v);
    for (Index i = 0; i < h; ++i) {
      if (i == k) continue;
      const attn::Matrix<T> b1 = O1.middleCols(i * d_v, d_v), b2 = O2.middleCols(i * d_v, d_v);
      const std::string diff = first_difference(b1, b2);
      if (!diff.empty())
        RC_LOG() << "changing head " << k << " changed head " << i << ": " << diff << "\n";
      RC_ASSERT(diff.empty());
    }
    // Non-vacuity: the changed head's own block usually moves.
    const attn::Matrix<T> c1 = O1.middleCols(k * d_v, d_v), c2 = O2.middleCols(k * d_v, d_v);
    RC_CLASSIFY(!first_difference(c1, c2).empty(), "the changed head's own block changed");
  });
}
