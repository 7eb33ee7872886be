#include "my_kernel.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

std::vector<float> my_attention(const std::vector<float>& Q, const std::vector<float>& K,
                                const std::vector<float>& V, const std::vector<bool>& forbidden,
                                int t_q, int t_v, int d_k, int d_v) {
  std::vector<float> out(static_cast<std::size_t>(t_q) * d_v, 0.0f);
  std::vector<float> logits(static_cast<std::size_t>(t_v));
  const float inv_root = 1.0f / std::sqrt(float(d_k));
  for (int i = 0; i < t_q; ++i) {
    float top = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < t_v; ++j) {
      float dot = 0;
      for (int r = 0; r < d_k; ++r) dot += Q[i * d_k + r] * K[j * d_k + r];
      logits[j] = forbidden[std::size_t(i) * t_v + j] ? -std::numeric_limits<float>::infinity()
                                                      : dot * inv_root;
      if (logits[j] > top) top = logits[j];
    }
    if (top == -std::numeric_limits<float>::infinity())
      throw std::invalid_argument("my_attention: query row " + std::to_string(i) + " has no allowed key");
    float total = 0;
    for (int j = 0; j < t_v; ++j) total += (logits[j] = std::exp(logits[j] - top));
    for (int j = 0; j < t_v; ++j)
      for (int l = 0; l < d_v; ++l) out[i * d_v + l] += logits[j] / total * V[j * d_v + l];
  }
  return out;
}
