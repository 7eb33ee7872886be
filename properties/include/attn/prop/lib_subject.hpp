#pragma once
// The library itself as a Subject (in-process), in float or double.

#include <string>

#include "attn/prop/subject.hpp"

namespace attn::prop {

/// Runs attn::attention / attention_tiled / attention_backward (naive, or
/// tiled when the case has tiles) / masked_softmax / softmax_rows in scalar T.
/// The library's typed errors become refusals named by their class
/// ("ShapeError", "FullyMaskedRowError", "NonFiniteInputError").
template <class T>
class LibSubject : public Subject {
 public:
  std::string name() const override;
  Precision precision() const override;
  bool supports(Operation) const override { return true; }
  Outcome run(const Case& c) override;
};

extern template class LibSubject<float>;
extern template class LibSubject<double>;

}  // namespace attn::prop
