// The (n, h) slices of a batched_attention case (batched.hpp).
#include "attn/prop/batched.hpp"

#include <cmath>
#include <sstream>

namespace attn::prop {

std::string shape_text(const Shape4& s) {
  std::ostringstream os;
  os << "(" << s[0] << ", " << s[1] << ", " << s[2] << ", " << s[3] << ")";
  return os.str();
}

DMatrix tensor_slice(const DMatrix& stacked, const Shape4& s, Index n, Index h) {
  return stacked.middleRows((n * s[1] + h) * s[2], s[2]);
}

DMatrix stacked_zeros(const Shape4& s) { return DMatrix::Zero(s[0] * s[1] * s[2], s[3]); }

void set_tensor_slice(DMatrix& stacked, const Shape4& s, Index n, Index h, const DMatrix& M) {
  stacked.middleRows((n * s[1] + h) * s[2], s[2]) = M;
}

Shape4 batched_output_shape(const Case& c) {
  const auto& b = c.batched;
  return {b.Q[0], b.Q[1], b.Q[2], b.V[3]};
}

std::optional<std::string> batched_shape_problem(const Case& c) {
  const auto& b = c.batched;
  const Index N = b.Q[0], H = b.Q[1], T_q = b.Q[2], d_k = b.Q[3];
  std::ostringstream os;
  if (b.K[0] != N || b.V[0] != N) {
    os << "the batch sizes differ: Q has N = " << N << ", K " << b.K[0] << ", V " << b.V[0];
  } else if (b.K[1] != b.V[1]) {
    os << "K has H_kv = " << b.K[1] << " heads but V has " << b.V[1];
  } else if (b.K[1] < 1 || H % b.K[1] != 0) {
    os << "H_kv = " << b.K[1] << " (K, V) does not divide H = " << H
       << " (Q): query heads cannot be shared out in equal groups";
  } else if (b.K[2] != b.V[2]) {
    os << "K has T_v = " << b.K[2] << " keys but V has " << b.V[2];
  } else if (b.K[3] != d_k) {
    os << "Q has d_k = " << d_k << " but K has d_k = " << b.K[3];
  } else if (d_k < 1) {
    os << "d_k = 0";
  } else if (!b.mask_dims.empty()) {
    const Index rank = Index(b.mask_dims.size());
    const Shape4 target = {N, H, T_q, b.K[2]};
    const char* names[] = {"N", "H", "T_q", "T_v"};
    if (rank != 2 && rank != 4) {
      os << "the mask has " << rank << " dimensions; it must have 2 (T_q, T_v) or 4 (N, H, T_q, T_v)";
    } else {
      for (Index k = 0; k < rank; ++k) {
        const Index axis = 4 - rank + k;
        const Index m = b.mask_dims[std::size_t(k)];
        if (m != 1 && m != target[std::size_t(axis)]) {
          os << "the mask's dimension " << k << " is " << m << ", neither 1 nor "
             << names[axis] << " = " << target[std::size_t(axis)]
             << ": it does not broadcast against (N, H, T_q, T_v) = " << shape_text(target);
          break;
        }
      }
    }
  }
  if (os.tellp() == 0 && b.scale && !std::isfinite(*b.scale)) os << "the scale is not finite";
  if (os.tellp() == 0) return std::nullopt;
  return os.str();
}

bool causal_forbids(Index i, Index j, Index T_q, Index T_v, bool bottom_right) {
  return j > i + (bottom_right ? T_v - T_q : 0);
}

bool mask_forbids(const Case& c, Index n, Index h, Index i, Index j) {
  const auto& b = c.batched;
  if (b.mask_dims.empty() || !c.mask) return false;
  Shape4 d = {1, 1, 1, 1};
  const std::size_t rank = b.mask_dims.size();
  for (std::size_t k = 0; k < rank; ++k) d[4 - rank + k] = b.mask_dims[k];
  const Index mn = d[0] == 1 ? 0 : n, mh = d[1] == 1 ? 0 : h;
  const Index mi = d[2] == 1 ? 0 : i, mj = d[3] == 1 ? 0 : j;
  return (*c.mask)((mn * d[1] + mh) * d[2] + mi, mj);
}

HeadSlice batched_head(const Case& c, Index n, Index h) {
  const auto& b = c.batched;
  HeadSlice s;
  s.kv_head = kv_head_of(h, b.Q[1], b.K[1]);
  s.Q = tensor_slice(c.Q, b.Q, n, h);
  s.K = tensor_slice(c.K, b.K, n, s.kv_head);
  s.V = tensor_slice(c.V, b.V, n, s.kv_head);
  if (!b.mask_dims.empty() || b.causal) {
    const Index T_q = b.Q[2], T_v = b.K[2];
    Mask M(T_q, T_v);
    for (Index i = 0; i < T_q; ++i)
      for (Index j = 0; j < T_v; ++j)
        M(i, j) = mask_forbids(c, n, h, i, j) ||
                  (b.causal && causal_forbids(i, j, T_q, T_v, b.bottom_right));
    s.mask = std::move(M);
  }
  return s;
}

StackedRow stacked_row(const Shape4& s, Index r) {
  StackedRow out;
  if (s[1] < 1 || s[2] < 1 || r < 0) return out;
  out.i = r % s[2];
  const Index slice = r / s[2];
  out.h = slice % s[1];
  out.n = slice / s[1];
  return out;
}

}  // namespace attn::prop
