// A CPU "flash attention" kernel in the style of llm.c's plain-C loops: one
// query row at a time, key blocks of size B, a running maximum, sum and
// output row in scratch buffers. When a block raises the maximum, the new
// block's exponentials use the new maximum, but the sum and output already
// accumulated are left as they were (the exp(m_old - m_new) correction is
// missing).
// Expected: tiled_no_rescale, or no key.
#include "attention_tiled.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace t1 {
namespace {

void validate(const Matrix& Q, const Matrix& K, const Matrix& V, const std::optional<Mask>& mask) {
  if (Q.cols() != K.cols()) throw std::invalid_argument("head size mismatch");
  if (K.rows() != V.rows()) throw std::invalid_argument("K/V length mismatch");
  if (mask) {
    if (mask->rows() != Q.rows() || mask->cols() != K.rows()) throw std::invalid_argument("mask shape");
    for (int t = 0; t < int(mask->rows()); t++) {
      bool any = false;
      for (int t2 = 0; t2 < int(mask->cols()); t2++) any = any || !(*mask)(t, t2);
      if (!any) throw std::domain_error("query has no key to attend to");
    }
  }
}

bool blocked(const std::optional<Mask>& mask, int t, int t2) { return mask && (*mask)(t, t2); }

}  // namespace

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  validate(Q, K, V, mask);
  const int T = int(Q.rows()), T2 = int(K.rows()), C = int(Q.cols()), OC = int(V.cols());
  const double scale = 1.0 / std::sqrt(double(C));
  AttentionResult out{Matrix::Zero(T, OC), Matrix::Zero(T, T2)};
  for (int t = 0; t < T; t++) {
    double maxval = -INFINITY;
    for (int t2 = 0; t2 < T2; t2++) {
      double val = 0.0;
      for (int i = 0; i < C; i++) val += Q(t, i) * K(t2, i);
      val = blocked(mask, t, t2) ? -INFINITY : val * scale;
      out.A(t, t2) = val;
      if (val > maxval) maxval = val;
    }
    double expsum = 0.0;
    for (int t2 = 0; t2 < T2; t2++) {
      const double e = std::exp(out.A(t, t2) - maxval);
      out.A(t, t2) = e;
      expsum += e;
    }
    for (int t2 = 0; t2 < T2; t2++) out.A(t, t2) /= expsum;
    for (int t2 = 0; t2 < T2; t2++)
      for (int i = 0; i < OC; i++) out.O(t, i) += out.A(t, t2) * V(t2, i);
  }
  return out;
}

TiledResult attention_tiled(const Matrix& Q, const Matrix& K, const Matrix& V,
                            const std::optional<Mask>& mask, Eigen::Index tile_q,
                            Eigen::Index tile_k) {
  (void)tile_q;  // rows are independent: one query row at a time
  validate(Q, K, V, mask);
  const int T = int(Q.rows()), T2 = int(K.rows()), C = int(Q.cols()), OC = int(V.cols());
  const int B = int(tile_k);
  const double scale = 1.0 / std::sqrt(double(C));
  TiledResult res{Matrix::Zero(T, OC), Eigen::VectorXd::Zero(T)};
  std::vector<double> att(B), acc(OC);
  for (int t = 0; t < T; t++) {
    double maxval = -INFINITY, sum = 0.0;
    for (int i = 0; i < OC; i++) acc[i] = 0.0;
    for (int b0 = 0; b0 < T2; b0 += B) {
      const int b1 = b0 + B < T2 ? b0 + B : T2;
      double blockmax = -INFINITY;
      for (int t2 = b0; t2 < b1; t2++) {
        double val = 0.0;
        for (int i = 0; i < C; i++) val += Q(t, i) * K(t2, i);
        val = blocked(mask, t, t2) ? -INFINITY : val * scale;
        att[t2 - b0] = val;
        if (val > blockmax) blockmax = val;
      }
      if (blockmax == -INFINITY) continue;  // whole block masked for this row
      if (blockmax > maxval) maxval = blockmax;
      for (int t2 = b0; t2 < b1; t2++) {
        const double e = std::exp(att[t2 - b0] - maxval);
        sum += e;
        for (int i = 0; i < OC; i++) acc[i] += e * V(t2, i);
      }
    }
    for (int i = 0; i < OC; i++) res.O(t, i) = acc[i] / sum;
    res.logsumexp(t) = maxval + std::log(sum);
  }
  return res;
}

}  // namespace t1
