// FlashAttention's Algorithm 1 transcribed line by line into a CPU kernel,
// as a from-scratch port of the CUDA kernel would be: for each block of Br
// queries and each block of Bc keys, the block's own row maximum m~_ij,
// P~_ij = exp(S_ij - m~_ij), l~_ij = rowsum(P~_ij), then
//   m_new = max(m_i, m~_ij),  l_new = e^(m_i - m_new) l_i + e^(m~_ij - m_new) l~_ij,
//   O_i   = (l_i e^(m_i - m_new) O_i + e^(m~_ij - m_new) P~_ij V_j) / l_new.
// The masking is added as -inf scores and nothing else: a key block with no
// allowed key for a row has m~_ij = -inf and exp(-inf - (-inf)) = NaN.
// Expected: tiled_forbidden_tile_nan, or no key.
#include "attention_tiled.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace t1 {
namespace {

constexpr double NEG_INF = -std::numeric_limits<double>::infinity();

void check(const Matrix& Q, const Matrix& K, const Matrix& V, const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols()) throw std::invalid_argument("Q and K differ in head dim");
  if (K.rows() != V.rows()) throw std::invalid_argument("K and V differ in length");
  if (!mask) return;
  if (mask->rows() != Q.rows() || mask->cols() != K.rows())
    throw std::invalid_argument("mask must be N x N_kv");
  for (Eigen::Index r = 0; r < mask->rows(); ++r)
    if (mask->row(r).all()) throw std::invalid_argument("query row attends to nothing");
}

}  // namespace

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  check(Q, K, V, mask);
  const double scale = 1.0 / std::sqrt(double(Q.cols()));
  Matrix S = (Q * K.transpose()) * scale;
  if (mask) S = mask->select(Matrix::Constant(S.rows(), S.cols(), NEG_INF), S);
  Matrix P(S.rows(), S.cols());
  for (Eigen::Index r = 0; r < S.rows(); ++r) {
    const double mx = S.row(r).maxCoeff();
    for (Eigen::Index c = 0; c < S.cols(); ++c) P(r, c) = std::exp(S(r, c) - mx);
    P.row(r) /= P.row(r).sum();
  }
  return {P * V, P};
}

TiledResult attention_tiled(const Matrix& Q, const Matrix& K, const Matrix& V,
                            const std::optional<Mask>& mask, Eigen::Index tile_q,
                            Eigen::Index tile_k) {
  check(Q, K, V, mask);
  const int N = int(Q.rows()), N_kv = int(K.rows()), d = int(Q.cols()), dv = int(V.cols());
  const int Br = int(tile_q), Bc = int(tile_k);
  const int Tr = (N + Br - 1) / Br, Tc = (N_kv + Bc - 1) / Bc;
  const double scale = 1.0 / std::sqrt(double(d));

  Matrix O = Matrix::Zero(N, dv);
  std::vector<double> l(N, 0.0), m(N, NEG_INF);
  std::vector<double> S_ij(Br * Bc), P_ij(Br * Bc), PV(dv);

  for (int j = 0; j < Tc; j++) {           // outer loop over K_j, V_j (Algorithm 1, line 5)
    const int kv0 = j * Bc, bc = std::min(Bc, N_kv - kv0);
    for (int i = 0; i < Tr; i++) {         // inner loop over Q_i (line 7)
      const int q0 = i * Br, br = std::min(Br, N - q0);
      for (int r = 0; r < br; r++) {
        // line 9: S_ij = Q_i K_j^T
        double m_tilde = NEG_INF;
        for (int c = 0; c < bc; c++) {
          double s = 0.0;
          for (int x = 0; x < d; x++) s += Q(q0 + r, x) * K(kv0 + c, x);
          s *= scale;
          if (mask && (*mask)(q0 + r, kv0 + c)) s = NEG_INF;
          S_ij[r * Bc + c] = s;
          m_tilde = std::max(m_tilde, s);  // line 10: m~_ij = rowmax(S_ij)
        }
        // line 10: P~_ij = exp(S_ij - m~_ij), l~_ij = rowsum(P~_ij)
        double l_tilde = 0.0;
        for (int c = 0; c < bc; c++) {
          P_ij[r * Bc + c] = std::exp(S_ij[r * Bc + c] - m_tilde);
          l_tilde += P_ij[r * Bc + c];
        }
        // line 11
        const int row = q0 + r;
        const double m_new = std::max(m[row], m_tilde);
        const double a = std::exp(m[row] - m_new), b = std::exp(m_tilde - m_new);
        const double l_new = a * l[row] + b * l_tilde;
        // line 12: O_i = diag(l_new)^-1 (diag(l_i) e^(m_i - m_new) O_i + e^(m~_ij - m_new) P~_ij V_j)
        for (int x = 0; x < dv; x++) {
          PV[x] = 0.0;
          for (int c = 0; c < bc; c++) PV[x] += P_ij[r * Bc + c] * V(kv0 + c, x);
          O(row, x) = (l[row] * a * O(row, x) + b * PV[x]) / l_new;
        }
        // line 13
        l[row] = l_new;
        m[row] = m_new;
      }
    }
  }
  Eigen::VectorXd lse(N);
  for (int r = 0; r < N; r++) lse(r) = m[r] + std::log(l[r]);
  return {O, lse};
}

}  // namespace t1
