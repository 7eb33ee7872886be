// Exercise F4 (section 32.2.8): the corrected masking, in C++. Skeleton.
//
// post_softmax_mask.cpp (in this folder) masks AFTER the softmax. Find why
// its rows stop summing to 1, then write the corrected f4::attention below
// (F3's contract, see masked_attention.hpp) and fill in answers_skeleton.json
// (save it as answers.json):
//     attnlab grade skeleton.cpp --answers answers.json
// As it stands, the skeleton throws for every case, so it fails the properties.

#include "masked_attention.hpp"

#include <stdexcept>

namespace f4 {

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  (void)Q;
  (void)K;
  (void)V;
  (void)mask;
  throw std::logic_error("F4: the corrected attention is not written yet");
}

}  // namespace f4
