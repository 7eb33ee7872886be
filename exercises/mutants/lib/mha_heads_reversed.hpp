// mutant: heads_reversed
// exercise: MHA
// misconception: the heads' outputs are concatenated in the wrong order (last head first), so W_O's row blocks meet the wrong heads.
// violates: O = [O_1, ..., O_h] W_O, section 32.2.5 (head i in columns i d_v to (i+1) d_v - 1)
// caught by: mha_against_oracle
//
// A library-operation mutant: multi-head attention has no protocol op, so it
// is an in-process C++ subject, checked by the library-level properties
// (properties/tests/lib/mha_mutants_test.cpp; `attnlab mutants` lists it).
#pragma once

#include <optional>

#include "attn/attn.hpp"

namespace attn::mutants {

template <class T>
Matrix<T> mha_heads_reversed(const Matrix<T>& X, const MultiHeadWeights<T>& w,
                             const std::optional<Mask>& mask) {
  const Index h = Index(w.heads.size());
  const Index d_v = w.heads.front().W_V.cols();
  Matrix<T> C(X.rows(), h * d_v);
  for (Index i = 0; i < h; ++i) {
    const HeadWeights<T>& hw = w.heads[std::size_t(i)];
    const Matrix<T> Q = X * hw.W_Q, K = X * hw.W_K, V = X * hw.W_V;
    C.middleCols((h - 1 - i) * d_v, d_v) = attention<T>(Q, K, V, mask).O;  // BUG: block h-1-i
  }
  return C * w.W_O;
}

}  // namespace attn::mutants
