// See ceiling.hpp. CMake defines CEILING_ISA and -DEigen=attn_bench_eigen_<isa>.
#define EIGEN_DONT_PARALLELIZE  // our threads, over blocks of query rows
#include <Eigen/Core>
#include <omp.h>

#include "ceiling.hpp"

#define ATTN_CEILING_CAT2(a, b) a##b
#define ATTN_CEILING_CAT(a, b) ATTN_CEILING_CAT2(a, b)
#define ATTN_CEILING_FN ATTN_CEILING_CAT(ceiling_, CEILING_ISA)

namespace attn::bench {
namespace {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class T>
void ceiling(const T* Q, const T* K, const T* V, T* O, std::ptrdiff_t T_q, std::ptrdiff_t T_v,
             std::ptrdiff_t d, std::ptrdiff_t block, int threads) {
  const Eigen::Map<const Mat<T>> Km(K, T_v, d), Vm(V, T_v, d);
  const std::ptrdiff_t blocks = (T_q + block - 1) / block;
#pragma omp parallel num_threads(threads)
  {
    Mat<T> S;
#pragma omp for schedule(dynamic, 1)
    for (std::ptrdiff_t b = 0; b < blocks; ++b) {
      const std::ptrdiff_t q0 = b * block, nq = block < T_q - q0 ? block : T_q - q0;
      S.noalias() = Eigen::Map<const Mat<T>>(Q + q0 * d, nq, d) * Km.transpose();
      Eigen::Map<Mat<T>>(O + q0 * d, nq, d).noalias() = S * Vm;
    }
  }
}

}  // namespace

void ATTN_CEILING_FN(const float* Q, const float* K, const float* V, float* O, std::ptrdiff_t T_q,
                     std::ptrdiff_t T_v, std::ptrdiff_t d, std::ptrdiff_t block, int threads) {
  ceiling(Q, K, V, O, T_q, T_v, d, block, threads);
}
void ATTN_CEILING_FN(const double* Q, const double* K, const double* V, double* O,
                     std::ptrdiff_t T_q, std::ptrdiff_t T_v, std::ptrdiff_t d, std::ptrdiff_t block,
                     int threads) {
  ceiling(Q, K, V, O, T_q, T_v, d, block, threads);
}

}  // namespace attn::bench
