// Calls attn::attention and attn::attention_tiled from code built with the
// consumer's own flags, and frees, resizes and copies what the library
// allocated (and lets the library fill matrices this side allocated).
// Exit 0 if both agree with each other; a mismatched Eigen ABI crashes here.
#include <attn/attn.hpp>
#include <cmath>
#include <cstdio>

int main() {
#if defined(__AVX512F__)
  std::printf("built with AVX-512\n");
#elif defined(__AVX2__)
  std::printf("built with AVX2\n");
#else
  std::printf("built for the baseline\n");
#endif
  std::printf("tiled kernel: %s\n", attn::attention_tiled_kernel());
  int failures = 0;
  for (int round = 0; round < 20; ++round) {
    const attn::Index T = 37 + round, d = 16 + round;
    attn::Matrix<double> Q = attn::Matrix<double>::Random(T, d);
    attn::Matrix<double> K = attn::Matrix<double>::Random(T, d);
    attn::Matrix<double> V = attn::Matrix<double>::Random(T, d);
    auto naive = attn::attention<double>(Q, K, V, attn::causal_mask(T, T));
    auto tiled = attn::attention_tiled<double>(Q, K, V, attn::causal_mask(T, T), {.query = 8, .key = 8});
    const double diff = (naive.O - tiled.O).cwiseAbs().maxCoeff();
    if (!(diff < 1e-12)) {
      std::printf("round %d: |naive - tiled| = %g\n", round, diff);
      ++failures;
    }
    // Matrices allocated by the library, resized, copied and freed here.
    attn::Matrix<double> copy = naive.A;
    naive.A.resize(3 * T, 2 * T);
    naive.A.setZero();
    tiled.O = copy.transpose() * copy;
    attn::Matrix<float> Qf = Q.cast<float>(), Kf = K.cast<float>(), Vf = V.cast<float>();
    auto f = attn::attention_tiled<float>(Qf, Kf, Vf, std::nullopt);
    f.O.conservativeResize(T + 5, d + 1);
    f.logsumexp.resize(1);
  }
  std::printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
