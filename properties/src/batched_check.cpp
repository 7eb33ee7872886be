// Pieces shared by the batched_attention properties (batched_check.hpp).
#include "batched_check.hpp"

#include <algorithm>
#include <cmath>

namespace attn::prop::detail {

Case kv_heads_modulo(const Case& c) {
  Case m = c;
  const auto& b = c.batched;
  const Index H = b.Q[1], H_kv = b.K[1];
  m.batched.K[1] = m.batched.V[1] = H;
  m.K = stacked_zeros(m.batched.K);
  m.V = stacked_zeros(m.batched.V);
  for (Index n = 0; n < b.Q[0]; ++n)
    for (Index h = 0; h < H; ++h) {
      set_tensor_slice(m.K, m.batched.K, n, h, tensor_slice(c.K, b.K, n, h % H_kv));
      set_tensor_slice(m.V, m.batched.V, n, h, tensor_slice(c.V, b.V, n, h % H_kv));
    }
  return m;
}

std::optional<Failure> check_batched(Subject& s, const Case& c,
                                     const std::vector<Misreading>& misreadings,
                                     const std::string& property) {
  const Outcome o = s.run(c);
  auto f = check_answer(s, c, o, {}, property);
  if (!f || o.kind != Outcome::Kind::result || require_answer(o, c, s)) return f;
  for (const Misreading& m : misreadings) {
    try {
      const Expected e = expected_for(m.as_case, s.precision());
      if (!compare_with_bound("O", o.O, e.O, e.bound_O)) {
        f->summary += "; the whole answer agrees, within the bound, with " + m.what;
        break;
      }
    } catch (const ref::OracleRefusal&) {
      // That reading has no answer here (a row left without keys): nothing to say.
    }
  }
  return f;
}

Case fitted_case(const Case& c) {
  Case f = c;
  auto& b = f.batched;
  for (int round = 0; round < 6 && batched_shape_problem(f); ++round) {
    const Index N = b.Q[0];
    if (b.K[0] != N || b.V[0] != N) {
      const Index n = std::min({N, b.K[0], b.V[0]});
      f.K = f.K.topRows(n * b.K[1] * b.K[2]).eval();
      f.V = f.V.topRows(n * b.V[1] * b.V[2]).eval();
      b.K[0] = b.V[0] = n;
      if (n < N) {  // never generated: Q cut to the common batch size too
        f.Q = f.Q.topRows(n * b.Q[1] * b.Q[2]).eval();
        b.Q[0] = n;
      }
      continue;
    }
    if (b.K[1] < 1 || b.K[1] != b.V[1] || b.Q[1] % b.K[1] != 0) {
      Shape4 K1 = b.K, V1 = b.V;
      K1[1] = V1[1] = 1;
      DMatrix K = stacked_zeros(K1), V = stacked_zeros(V1);
      for (Index n = 0; n < N; ++n) {
        set_tensor_slice(K, K1, n, 0, tensor_slice(f.K, b.K, n, 0));
        set_tensor_slice(V, V1, n, 0, tensor_slice(f.V, b.V, n, 0));
      }
      f.K = K;
      f.V = V;
      b.K = K1;
      b.V = V1;
      continue;
    }
    if (b.K[2] != b.V[2]) {
      Shape4 V1 = b.V;
      V1[2] = std::min(b.K[2], b.V[2]);
      Shape4 K1 = b.K;
      K1[2] = V1[2];
      DMatrix K = stacked_zeros(K1), V = stacked_zeros(V1);
      for (Index n = 0; n < N; ++n)
        for (Index g = 0; g < b.K[1]; ++g) {
          set_tensor_slice(K, K1, n, g, tensor_slice(f.K, b.K, n, g).topRows(K1[2]));
          set_tensor_slice(V, V1, n, g, tensor_slice(f.V, b.V, n, g).topRows(V1[2]));
        }
      f.K = K;
      f.V = V;
      b.K = K1;
      b.V = V1;
      if (!b.mask_dims.empty() && b.mask_dims.back() != 1 && b.mask_dims.back() != b.K[2]) {
        b.mask_dims.clear();
        f.mask.reset();
      }
      continue;
    }
    if (b.K[3] != b.Q[3]) {
      DMatrix K = DMatrix::Zero(f.K.rows(), b.Q[3]);
      const Index keep = std::min(b.K[3], b.Q[3]);
      K.leftCols(keep) = f.K.leftCols(keep);
      f.K = K;
      b.K[3] = b.Q[3];
      continue;
    }
    // What is left is the mask (or a scale that is not finite).
    b.mask_dims.clear();
    f.mask.reset();
    if (b.scale && !std::isfinite(*b.scale)) b.scale.reset();
  }
  return f;
}

}  // namespace attn::prop::detail
