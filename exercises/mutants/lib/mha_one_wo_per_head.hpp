// mutant: one_wo_per_head
// exercise: MHA
// misconception: one output projection is applied to every head on its own (the first d_v rows of W_O, for each head) and the results are summed, instead of the concatenation times the whole W_O.
// violates: O = [O_1, ..., O_h] W_O, section 32.2.5 (each head meets its own row block of W_O)
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
Matrix<T> mha_one_wo_per_head(const Matrix<T>& X, const MultiHeadWeights<T>& w,
                              const std::optional<Mask>& mask) {
  const Index d_v = w.heads.front().W_V.cols();
  const Matrix<T> W = w.W_O.topRows(d_v);  // BUG: the same block for every head
  Matrix<T> O = Matrix<T>::Zero(X.rows(), w.W_O.cols());
  for (const HeadWeights<T>& hw : w.heads) {
    const Matrix<T> Q = X * hw.W_Q, K = X * hw.W_K, V = X * hw.W_V;
    O += attention<T>(Q, K, V, mask).O * W;
  }
  return O;
}

}  // namespace attn::mutants
