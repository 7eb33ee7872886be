// Property: batched attention is attention on each sequence with its own
// padding (section 32.2.4: padding keys may be attended by no query; padding
// and causal masks combine by union).
//  - attention_varlen(Q, K, V, key_lengths, causal)[n] equals, bit-exactly in O
//    and A, attention(Q[n], K[n], V[n], mask_n) with mask_n = padding_mask(T_q,
//    T_v, key_lengths[n]), combined with the top-left causal mask when causal.
//    Bit-exact because a sequence's result must not depend on the other
//    sequences of the batch nor on how the batch is walked.
//  - The weights of forbidden keys are exactly 0.0 (Lemma 2): A(i, j) == 0 for
//    j >= key_lengths[n] and, with causal, for j > i. This is checked against
//    the rule itself, not against the library's masks, so a wrong padding_mask
//    is caught too.
// Shapes vary from one sequence to the next (T_q != T_v included); every
// key_length is at least 1, so key 0 keeps every row defined (also with causal).
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include "lib_prop_support.hpp"

using namespace attn::libprop;
using attn::Index;

TEMPLATE_TEST_CASE("batched attention equals attention per sequence with its padding mask",
                   "[lib][batched]", float, double) {
  using T = TestType;
  rc::prop("attention_varlen(...)[n] == attention(Q[n], K[n], V[n], padding (+ causal)) bit-exactly",
           [] {
             const Index N = draw_size(4);
             const bool causal = *rc::gen::arbitrary<bool>();
             RC_TAG(causal ? "mask: padding and causal" : "mask: padding");
             const Values v = draw_values(std::is_same_v<T, double>);
             std::vector<attn::Matrix<T>> Q, K, V;
             std::vector<Index> key_lengths;
             bool padded = false, ragged = false, shapes_differ = false;
             for (Index n = 0; n < N; ++n) {
               const Index T_q = draw_size(8), T_v = draw_size(8), d_k = draw_size(4),
                           d_v = draw_size(4);
               const Index L = *rc::gen::inRange<Index>(1, T_v + 1);
               Q.push_back(to_type<T>(draw_matrix(T_q, d_k, v)));
               K.push_back(to_type<T>(draw_matrix(T_v, d_k, v)));
               V.push_back(to_type<T>(draw_matrix(T_v, d_v, v)));
               key_lengths.push_back(L);
               padded = padded || L < T_v;
               ragged = ragged || T_q != T_v;
               if (n > 0)
                 shapes_differ = shapes_differ || Q[0].rows() != T_q || K[0].rows() != T_v ||
                                 Q[0].cols() != d_k || V[0].cols() != d_v;
             }
             RC_CLASSIFY(padded, "some keys are padding");
             RC_CLASSIFY(ragged, "a sequence with T_q != T_v");
             RC_CLASSIFY(shapes_differ, "sequences of different shapes");

             const auto batched = attn::attention_varlen<T>(Q, K, V, key_lengths, causal);
             RC_ASSERT(batched.size() == std::size_t(N));
             for (Index n = 0; n < N; ++n) {
               const std::size_t k = std::size_t(n);
               const Index T_q = Q[k].rows(), T_v = K[k].rows();
               attn::Mask mask = attn::padding_mask(T_q, T_v, key_lengths[k]);
               if (causal) mask = attn::combine_masks(mask, attn::causal_mask(T_q, T_v));
               const attn::AttentionResult<T> one = attn::attention<T>(Q[k], K[k], V[k], mask);
               const std::string dO = first_difference(batched[k].O, one.O);
               const std::string dA = first_difference(batched[k].A, one.A);
               RC_LOG() << "sequence " << n << ": key_length " << key_lengths[k] << "\nQ =\n"
                        << show_matrix(Q[k]) << "\nK =\n" << show_matrix(K[k]) << "\nV =\n"
                        << show_matrix(V[k]) << "\nA =\n" << show_matrix(batched[k].A) << "\n";
               if (!dO.empty()) RC_LOG() << "sequence " << n << ", O: " << dO << "\n";
               if (!dA.empty()) RC_LOG() << "sequence " << n << ", A: " << dA << "\n";
               RC_ASSERT(dO.empty());
               RC_ASSERT(dA.empty());
               // Forbidden keys by the rule (section 32.2.4), weight exactly 0.0.
               for (Index i = 0; i < T_q; ++i)
                 for (Index j = 0; j < T_v; ++j) {
                   const bool forbidden = j >= key_lengths[k] || (causal && j > i);
                   if (forbidden && batched[k].A(i, j) != T(0))
                     RC_LOG() << "sequence " << n << ": forbidden A(" << i << ", " << j
                              << ") = " << double(batched[k].A(i, j)) << "\n";
                   if (forbidden) RC_ASSERT(batched[k].A(i, j) == T(0));
                 }
             }
           });
}
