#pragma once
// "Your" attention kernel: flat row-major float buffers, nothing from attnlab.
#include <vector>

/// O (t_q x d_v) = softmax(Q K^T / sqrt(d_k)) V with forbidden[i * t_v + j]
/// excluding key j for query i (true = forbidden). Throws std::invalid_argument
/// if a row has no allowed key.
std::vector<float> my_attention(const std::vector<float>& Q, const std::vector<float>& K,
                                const std::vector<float>& V, const std::vector<bool>& forbidden,
                                int t_q, int t_v, int d_k, int d_v);
