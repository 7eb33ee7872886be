// A user of the installed attnlab::attn, built with its own flags (with and
// without -march=native, CMakeLists.txt): it multiplies large matrices of
// its own with Eigen (OpenMP on), calls every public function of the library,
// and frees, resizes and copies what the library returned, mixing it into
// its own products. Exit 0 when every result agrees with this side's own
// computation; a mismatched Eigen ABI crashes here or disagrees.
#include <omp.h>

#include <attn/attn.hpp>
#include <cmath>
#include <cstdio>
#include <string>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what.c_str());
    ++failures;
  }
}

/// Largest |a - b| relative to max(1, |b|).
template <class A, class B>
double rel_diff(const A& a, const B& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  const double den = std::max(1.0, static_cast<double>(b.cwiseAbs().maxCoeff()));
  return static_cast<double>((a - b).cwiseAbs().maxCoeff()) / den;
}

/// This side's own product (Eigen's GEMM, packed and vectorised with this
/// translation unit's flags, on OpenMP's threads), checked entry by entry
/// on a few rows against a plain loop.
template <class M>
M own_product(const M& X, const M& Y, const char* what) {
  M P = X * Y;
  for (Eigen::Index i = 0; i < P.rows(); i += P.rows() / 7 + 1)
    for (Eigen::Index j = 0; j < P.cols(); j += P.cols() / 5 + 1) {
      double s = 0;
      for (Eigen::Index k = 0; k < X.cols(); ++k) s += double(X(i, k)) * double(Y(k, j));
      expect(std::abs(s - double(P(i, j))) <= 1e-3 * (1 + std::abs(s)), what);
    }
  return P;
}

/// The definition, in this translation unit: softmax(c Q K^T, mask) V.
attn::Matrix<double> reference_attention(const attn::Matrix<double>& Q,
                                         const attn::Matrix<double>& K,
                                         const attn::Matrix<double>& V, const attn::Mask& mask) {
  attn::Matrix<double> S = Q * K.transpose() / std::sqrt(double(Q.cols()));
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    double m = -INFINITY;
    for (Eigen::Index j = 0; j < S.cols(); ++j)
      if (!mask(i, j)) m = std::max(m, S(i, j));
    double l = 0;
    for (Eigen::Index j = 0; j < S.cols(); ++j) l += S(i, j) = mask(i, j) ? 0 : std::exp(S(i, j) - m);
    S.row(i) /= l;
  }
  return S * V;
}

}  // namespace

int main() {
#if defined(__AVX512F__)
  std::printf("built with AVX-512, EIGEN_MAX_ALIGN_BYTES = %d\n", EIGEN_MAX_ALIGN_BYTES);
  // This side's Eigen is its own: nothing attnlab brings lowers it.
  static_assert(EIGEN_MAX_ALIGN_BYTES == 64, "the consumer's Eigen keeps its own alignment");
#elif defined(__AVX__)
  std::printf("built with AVX, EIGEN_MAX_ALIGN_BYTES = %d\n", EIGEN_MAX_ALIGN_BYTES);
  static_assert(EIGEN_MAX_ALIGN_BYTES == 32, "the consumer's Eigen keeps its own alignment");
#else
  std::printf("built for the baseline, EIGEN_MAX_ALIGN_BYTES = %d\n", EIGEN_MAX_ALIGN_BYTES);
#endif
  std::printf("OpenMP threads: %d, Eigen threads: %d, tiled kernel: %s\n", omp_get_max_threads(),
              Eigen::nbThreads(), attn::attention_tiled_kernel());

  // Large products of this side's own, as a user's model would do, before,
  // between and after the library's calls.
  for (const Eigen::Index n : {Eigen::Index(1024), Eigen::Index(1536)}) {
    const Eigen::Index k = n / 16;
    const Eigen::MatrixXd A = Eigen::MatrixXd::Random(n, k), B = Eigen::MatrixXd::Random(k, n);
    own_product<Eigen::MatrixXd>(A, B, "own product, double, column-major");
    const attn::Matrix<float> Af = A.cast<float>(), Bf = B.cast<float>();
    own_product<attn::Matrix<float>>(Af, Bf, "own product, float, row-major");
  }

  for (int round = 0; round < 6; ++round) {
    const attn::Index T = 97 + 61 * round, d = 64 + 8 * round;
    const attn::Matrix<double> Q = attn::Matrix<double>::Random(T, d);
    const attn::Matrix<double> K = attn::Matrix<double>::Random(T, d);
    const attn::Matrix<double> V = attn::Matrix<double>::Random(T, d);
    const attn::Mask causal = attn::causal_mask(T, T);
    const attn::Mask padded = attn::padding_mask(T, T, T - 3);
    const attn::Mask both = attn::combine_masks(causal, padded);
    const std::string at = " (round " + std::to_string(round) + ")";
    expect(both(T - 1, T - 1) && !both(T - 1, 0) && both(0, 1), "masks" + at);
    expect(attn::causal_mask(2, 3, attn::CausalAlignment::bottom_right)(0, 1) == false,
           "bottom-right causal mask" + at);

    const attn::Matrix<double> expected = reference_attention(Q, K, V, causal);
    auto naive = attn::attention<double>(Q, K, V, causal);
    expect(rel_diff(naive.O, expected) < 1e-12, "attention" + at);
    auto tiled = attn::attention_tiled<double>(Q, K, V, causal, {.query = 32, .key = 64});
    expect(rel_diff(tiled.O, expected) < 1e-12, "attention_tiled" + at);
    auto tiled2 = attn::attention_tiled<double>(Q, K, V, std::nullopt,
                                                attn::AttentionOptions{.scale = std::nullopt, .causal = true});
    expect(rel_diff(tiled2.O, expected) < 1e-12, "attention_tiled with options" + at);
    const attn::Matrix<double> S = attn::scores<double>(Q, K);
    expect(rel_diff(S, attn::Matrix<double>(Q * K.transpose() / std::sqrt(double(d)))) < 1e-12,
           "scores" + at);
    const attn::Matrix<double> A = attn::masked_softmax<double>(S, causal);
    expect(rel_diff(A, naive.A) < 1e-12, "masked_softmax" + at);
    const attn::Matrix<double> A_all = attn::softmax_rows<double>(S);
    expect(std::abs(A_all.row(0).sum() - 1) < 1e-12, "softmax_rows" + at);

    const attn::Matrix<double> dO = attn::Matrix<double>::Random(T, d);
    auto g = attn::attention_backward<double>(Q, K, V, dO, causal);
    auto gt = attn::attention_backward_tiled<double>(Q, K, V, tiled.O, tiled.logsumexp, dO, causal);
    expect(rel_diff(gt.dQ, g.dQ) < 1e-10 && rel_diff(gt.dK, g.dK) < 1e-10 &&
               rel_diff(gt.dV, g.dV) < 1e-10,
           "attention_backward_tiled against attention_backward" + at);
    // dV = P^T dO (the definition), on this side.
    expect(rel_diff(g.dV, attn::Matrix<double>(naive.A.transpose() * dO)) < 1e-10,
           "attention_backward's dV" + at);

    attn::MultiHeadWeights<double> w;
    for (int h = 0; h < 2; ++h)
      w.heads.push_back({attn::Matrix<double>::Random(d, 16), attn::Matrix<double>::Random(d, 16),
                         attn::Matrix<double>::Random(d, 8)});
    w.W_O = attn::Matrix<double>::Random(16, d);
    const attn::Matrix<double> mh = attn::multi_head_attention<double>(Q, w, causal);
    const attn::Matrix<double> mh_cross = attn::multi_head_attention<double>(Q, K, w, causal);
    attn::Matrix<double> concat(T, 16);
    for (int h = 0; h < 2; ++h)
      concat.middleCols(8 * h, 8) = reference_attention(Q * w.heads[h].W_Q, Q * w.heads[h].W_K,
                                                        Q * w.heads[h].W_V, causal);
    expect(rel_diff(mh, attn::Matrix<double>(concat * w.W_O)) < 1e-10,
           "multi_head_attention" + at);
    expect(mh_cross.rows() == T && mh_cross.cols() == d, "multi_head_attention, cross" + at);

    auto batch = attn::attention_varlen<double>({Q, Q.topRows(T / 2)}, {K, K}, {V, V},
                                                 {T - 3, T}, true);
    expect(batch.size() == 2 &&
               rel_diff(batch[0].O, reference_attention(Q, K, V, both)) < 1e-12,
           "attention_varlen" + at);
    const attn::Matrix<float> P = attn::sinusoidal_positional_encoding<float>(T, d);
    expect(P(0, 1) == 1.0f && P(0, 0) == 0.0f, "sinusoidal_positional_encoding" + at);

    // The library's results freed, resized, copied and multiplied here, with
    // this side's own (wider) products.
    attn::Matrix<double> copy = naive.A;
    naive.A.resize(3 * T, T);
    naive.A.setRandom();
    tiled.O = copy.transpose() * copy;
    g.dQ.conservativeResize(T + 5, d + 1);
    tiled.logsumexp.resize(1);
    batch.erase(batch.begin());
    batch.push_back(batch.front());
    const attn::Matrix<double> big = own_product<attn::Matrix<double>>(naive.A, copy, "mixed");
    expect(big.rows() == 3 * T, "product of the library's result" + at);
    attn::Matrix<float> Qf = Q.cast<float>(), Kf = K.cast<float>(), Vf = V.cast<float>();
    auto f = attn::attention_tiled<float>(Qf, Kf, Vf, std::nullopt);
    f.O.conservativeResize(T + 5, d + 1);
    f.logsumexp.resize(1);
    auto ff = attn::attention<float>(Qf, Kf, Vf);
    ff = attn::attention<float>(Qf.topRows(3), Kf, Vf);
  }

  // A typed error thrown by the library, caught here.
  try {
    attn::attention<double>(attn::Matrix<double>::Random(3, 4), attn::Matrix<double>::Random(5, 3),
                            attn::Matrix<double>::Random(5, 2));
    expect(false, "ShapeError for d_k mismatch");
  } catch (const attn::ShapeError& e) {
    expect(std::string(e.what()).find("attention: Q is 3x4") != std::string::npos,
           std::string("ShapeError's message: ") + e.what());
  }
  std::printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
