// An Eigen-based engine's tiled attention: Q, K, V sliced with
// middleRows() into query and key blocks, the online softmax kept in Eigen
// arrays per query block. The key loop is written "while a whole block
// fits" (kb + Bc <= T_v), so when Bc does not divide T_v the keys of the
// shorter last block are never visited.
// Expected: tiled_last_tile_dropped, or no key.
#include "attention_tiled.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace t1 {
namespace {

using Array = Eigen::Array<double, Eigen::Dynamic, 1>;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}

void check_shapes(const Matrix& Q, const Matrix& K, const Matrix& V, const std::optional<Mask>& mask) {
  require(Q.cols() == K.cols(), "Q and K need the same d_k");
  require(K.rows() == V.rows(), "K and V need the same T_v");
  if (mask) {
    require(mask->rows() == Q.rows() && mask->cols() == K.rows(), "mask is T_q x T_v");
    for (Eigen::Index i = 0; i < mask->rows(); ++i)
      require(!mask->row(i).all(), "a query row has every key forbidden");
  }
}

}  // namespace

AttentionResult attention(const Matrix& Q, const Matrix& K, const Matrix& V,
                          const std::optional<Mask>& mask) {
  check_shapes(Q, K, V, mask);
  Matrix S = Q * K.transpose() / std::sqrt(double(Q.cols()));
  if (mask) S = mask->select(Matrix::Constant(S.rows(), S.cols(), kNegInf), S);
  Matrix A(S.rows(), S.cols());
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    const auto e = (S.row(i).array() - S.row(i).maxCoeff()).exp();
    A.row(i) = (e / e.sum()).matrix();
  }
  return {A * V, A};
}

TiledResult attention_tiled(const Matrix& Q, const Matrix& K, const Matrix& V,
                            const std::optional<Mask>& mask, Eigen::Index tile_q,
                            Eigen::Index tile_k) {
  check_shapes(Q, K, V, mask);
  const Eigen::Index T_q = Q.rows(), T_v = K.rows(), d_v = V.cols();
  const Eigen::Index Br = tile_q, Bc = tile_k;
  const double inv_sqrt_dk = 1.0 / std::sqrt(double(Q.cols()));
  TiledResult out{Matrix::Zero(T_q, d_v), Eigen::VectorXd::Zero(T_q)};
  for (Eigen::Index qb = 0; qb < T_q; qb += Br) {
    const Eigen::Index br = std::min(Br, T_q - qb);
    Array m = Array::Constant(br, kNegInf), l = Array::Zero(br);
    Matrix acc = Matrix::Zero(br, d_v);
    for (Eigen::Index kb = 0; kb + Bc <= T_v; kb += Bc) {
      Matrix S = Q.middleRows(qb, br) * K.middleRows(kb, Bc).transpose() * inv_sqrt_dk;
      if (mask) {
        const Mask blk = mask->block(qb, kb, br, Bc);
        S = blk.select(Matrix::Constant(br, Bc, kNegInf), S);
      }
      for (Eigen::Index r = 0; r < br; ++r) {
        const double m_blk = S.row(r).maxCoeff();
        if (m_blk == kNegInf) continue;  // nothing allowed for this row in this block
        const double m_new = std::max(m(r), m_blk);
        const double scale = m(r) == kNegInf ? 0.0 : std::exp(m(r) - m_new);
        const Eigen::RowVectorXd p = (S.row(r).array() - m_new).exp().matrix();
        l(r) = scale * l(r) + p.sum();
        acc.row(r) = scale * acc.row(r) + p * V.middleRows(kb, Bc);
        m(r) = m_new;
      }
    }
    for (Eigen::Index r = 0; r < br; ++r) {
      out.O.row(qb + r) = acc.row(r) / l(r);
      out.logsumexp(qb + r) = m(r) + std::log(l(r));
    }
  }
  return out;
}

}  // namespace t1
