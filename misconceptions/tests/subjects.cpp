// Independent test subjects (subjects.hpp): each bug written out with loops.
#include "subjects.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace mis_test {
namespace {

const double NEG_INF = -std::numeric_limits<double>::infinity();

void validate(const Case& c) {
  auto finite = [](const DMatrix& M) {
    for (Index i = 0; i < M.rows(); ++i)
      for (Index j = 0; j < M.cols(); ++j)
        if (std::isnan(M(i, j)) || M(i, j) == HUGE_VAL) return false;
    return true;
  };
  if (!finite(c.Q) || !finite(c.K) || !finite(c.V) || !finite(c.S) || !finite(c.X))
    throw std::invalid_argument("input is not finite");
  for (Index i = 0; i < c.Q.rows(); ++i)
    for (Index j = 0; j < c.Q.cols(); ++j)
      if (std::isinf(c.Q(i, j))) throw std::invalid_argument("input is not finite");
  if (c.op == Operation::attention || c.op == Operation::attention_tiled)
    if (c.Q.cols() != c.K.cols()) throw std::invalid_argument("d_k mismatch");
}

bool masked(const Case& c, Index i, Index j) { return c.mask && (*c.mask)(i, j); }

// Q K^T / div, div = sqrt(d_k) unless given.
DMatrix scores(const Case& c, double div = 0) {
  const Index d = c.Q.cols();
  if (div == 0) div = std::sqrt(double(d));
  DMatrix S(c.Q.rows(), c.K.rows());
  for (Index i = 0; i < S.rows(); ++i)
    for (Index j = 0; j < S.cols(); ++j) {
      double s = 0;
      for (Index t = 0; t < d; ++t) s += c.Q(i, t) * c.K(j, t);
      S(i, j) = s / div;
    }
  return S;
}

// The textbook softmax of each row over entries that are not -inf; throws for an empty row.
DMatrix softmax(const DMatrix& S) {
  DMatrix A(S.rows(), S.cols());
  for (Index i = 0; i < S.rows(); ++i) {
    double mx = NEG_INF;
    for (Index j = 0; j < S.cols(); ++j) mx = std::max(mx, S(i, j));
    if (mx == NEG_INF) throw std::invalid_argument("a row has every key forbidden");
    double z = 0;
    for (Index j = 0; j < S.cols(); ++j) z += std::exp(S(i, j) - mx);
    for (Index j = 0; j < S.cols(); ++j) A(i, j) = std::exp(S(i, j) - mx) / z;
  }
  return A;
}

DMatrix with_neg_inf(const Case& c, DMatrix S) {
  for (Index i = 0; i < S.rows(); ++i)
    for (Index j = 0; j < S.cols(); ++j)
      if (masked(c, i, j)) S(i, j) = NEG_INF;
  return S;
}

DMatrix times(const DMatrix& A, const DMatrix& B) {
  DMatrix C = DMatrix::Zero(A.rows(), B.cols());
  for (Index i = 0; i < A.rows(); ++i)
    for (Index k = 0; k < A.cols(); ++k)
      for (Index j = 0; j < B.cols(); ++j) C(i, j) += A(i, k) * B(k, j);
  return C;
}

Outcome attn_result(const Case& c, const DMatrix& A) { return Outcome::make_result(times(A, c.V), A); }

Outcome weights_result(const DMatrix& A) { return Outcome::make_result(DMatrix(), A); }

// The correct single-head attention (used by the multi-head subjects).
DMatrix head(const DMatrix& Q, const DMatrix& K, const DMatrix& V, const std::optional<attn::Mask>& m,
             double div) {
  Case h;
  h.Q = Q;
  h.K = K;
  h.V = V;
  h.mask = m;
  return times(softmax(with_neg_inf(h, scores(h, div))), V);
}

// Multi-head with knobs a student may get wrong, written plainly.
Outcome multi_head(const Case& c, int variant) {
  validate(c);
  const Index H = Index(c.heads.size()), d_v = c.heads[0].W_V.cols();
  DMatrix concat(c.X.rows(), H * d_v);
  DMatrix O = DMatrix::Zero(c.X.rows(), c.W_O.cols());
  for (Index h = 0; h < H; ++h) {
    const auto& w = c.heads[std::size_t(h)];
    const double div = variant == 3 ? std::sqrt(double(c.X.cols())) : std::sqrt(double(w.W_Q.cols()));
    const DMatrix Oh = head(times(c.X, w.W_Q), times(c.X, w.W_K), times(c.X, w.W_V),
                            variant == 4 ? std::nullopt : c.mask, div);
    if (variant == 2) {
      O += times(Oh, c.W_O.topRows(d_v));
      continue;
    }
    const Index block = variant == 1 ? H - 1 - h : h;
    concat.middleCols(block * d_v, d_v) = Oh;
  }
  if (variant != 2) O = times(concat, c.W_O);
  return Outcome::make_result(O, DMatrix());
}

// Online tiled attention over key tiles, as a student writes FlashAttention.
Outcome tiled(const Case& c, int variant) {
  validate(c);
  const DMatrix S = with_neg_inf(c, scores(c));
  const Index T_q = S.rows(), T_v = S.cols(), tk = c.tile_k, d_v = c.V.cols();
  for (Index i = 0; i < T_q; ++i) {
    bool any = false;
    for (Index j = 0; j < T_v; ++j) any = any || !masked(c, i, j);
    if (!any) throw std::invalid_argument("row fully forbidden");
  }
  DMatrix O(T_q, d_v), lse(T_q, 1);
  const Index n_tiles = variant == 3 ? T_v / tk : (T_v + tk - 1) / tk;
  for (Index i = 0; i < T_q; ++i) {
    double m = NEG_INF, l = 0;
    std::vector<double> acc(std::size_t(d_v), 0.0);
    for (Index t = 0; t < n_tiles; ++t) {
      const Index a = t * tk, b = std::min(T_v, a + tk);
      double tile_max = NEG_INF;
      for (Index j = a; j < b; ++j) tile_max = std::max(tile_max, S(i, j));
      if (variant == 2) {  // FlashAttention's Algorithm 1 without a guard
        double lt = 0;
        std::vector<double> pv(std::size_t(d_v), 0.0);
        for (Index j = a; j < b; ++j) {
          const double p = std::exp(S(i, j) - tile_max);
          lt += p;
          for (Index q = 0; q < d_v; ++q) pv[std::size_t(q)] += p * c.V(j, q);
        }
        const double m_new = std::max(m, tile_max);
        const double s_old = std::exp(m - m_new), s_new = std::exp(tile_max - m_new);
        l = s_old * l + s_new * lt;
        for (Index q = 0; q < d_v; ++q)
          acc[std::size_t(q)] = s_old * acc[std::size_t(q)] + s_new * pv[std::size_t(q)];
        m = m_new;
        continue;
      }
      const double m_new = std::max(m, tile_max);
      if (variant == 4) {  // the running-maximum form without a guard: NaN until a key is allowed
        const double f = std::exp(m - m_new);
        l *= f;
        for (auto& x : acc) x *= f;
        for (Index j = a; j < b; ++j) {
          const double p = std::exp(S(i, j) - m_new);
          l += p;
          for (Index q = 0; q < d_v; ++q) acc[std::size_t(q)] += p * c.V(j, q);
        }
        m = m_new;
        continue;
      }
      if (m_new == NEG_INF) continue;
      if (variant != 1 && m != NEG_INF) {
        const double f = std::exp(m - m_new);
        l *= f;
        for (auto& x : acc) x *= f;
      }
      for (Index j = a; j < b; ++j) {
        const double p = std::exp(S(i, j) - m_new);
        l += p;
        for (Index q = 0; q < d_v; ++q) acc[std::size_t(q)] += p * c.V(j, q);
      }
      m = m_new;
    }
    for (Index q = 0; q < d_v; ++q) O(i, q) = acc[std::size_t(q)] / l;
    lse(i, 0) = m + std::log(l);
  }
  Outcome o = Outcome::make_result(O, DMatrix());
  o.logsumexp = lse;
  return o;
}

Outcome build_mask(const Case& c, int variant) {
  const auto& s = c.mask_shape;
  attn::Mask M(s.T_q, s.T_v);
  for (Index i = 0; i < s.T_q; ++i)
    for (Index j = 0; j < s.T_v; ++j) {
      const Index off = s.bottom_right ? s.T_v - s.T_q : 0;
      if (c.op == Operation::causal_mask) {
        switch (variant) {
          case 1: M(i, j) = j > i; break;         // alignment ignored
          case 2: M(i, j) = j >= i + off; break;  // diagonal forbidden
          case 3: M(i, j) = j < i + off; break;   // past forbidden
          default: M(i, j) = j > i + off;
        }
      } else {
        switch (variant) {
          case 1: M(i, j) = j > s.key_length; break;
          case 2: M(i, j) = i >= s.key_length; break;
          default: M(i, j) = j >= s.key_length;
        }
      }
    }
  Outcome o = Outcome::make_result(DMatrix(), DMatrix());
  o.mask = M;
  return o;
}

}  // namespace

std::function<Outcome(const Case&)> correct_loops(Operation op) {
  switch (op) {
    case Operation::softmax_rows:
    case Operation::masked_softmax:
      return [](const Case& c) {
        validate(c);
        return weights_result(softmax(with_neg_inf(c, c.S)));
      };
    case Operation::attention:
      return [](const Case& c) {
        validate(c);
        return attn_result(c, softmax(with_neg_inf(c, scores(c))));
      };
    case Operation::attention_tiled: return [](const Case& c) { return tiled(c, 0); };
    case Operation::multi_head_attention: return [](const Case& c) { return multi_head(c, 0); };
    default: return [](const Case& c) { return build_mask(c, 0); };
  }
}

Case small_case(Operation op) {
  Case c;
  c.op = op;
  switch (op) {
    case Operation::softmax_rows: c.S = DMatrix::Constant(1, 2, 0.5); c.S(0, 1) = 0; break;
    case Operation::masked_softmax:
      c.S = DMatrix::Zero(1, 2);
      c.mask = attn::Mask::Constant(1, 2, false);
      (*c.mask)(0, 1) = true;
      break;
    case Operation::attention:
    case Operation::attention_tiled:
      c.Q = DMatrix::Constant(1, 1, 0.5);
      c.K = DMatrix::Constant(2, 1, 0.5);
      c.V = DMatrix::Constant(2, 1, 1.0);
      c.V(1, 0) = 0;
      c.mask = attn::Mask::Constant(1, 2, false);
      (*c.mask)(0, 1) = true;
      c.tile_q = 1;
      c.tile_k = 1;
      break;
    case Operation::multi_head_attention:
      c.X = DMatrix::Constant(2, 2, 0.5);
      for (int h = 0; h < 2; ++h)
        c.heads.push_back({DMatrix::Identity(2, 1), DMatrix::Identity(2, 1), DMatrix::Identity(2, 1)});
      c.W_O = DMatrix::Identity(2, 2);
      break;
    default:
      c.mask_shape.T_q = 1;
      c.mask_shape.T_v = 2;
      c.mask_shape.key_length = 1;
      c.mask_shape.bottom_right = true;
  }
  return c;
}

namespace {

/// The mask reaching the wrong place: not at all, inverted, transposed, on V,
/// in A only, or the causal one assumed.
void add_mask_placement_subjects(std::vector<KeyedSubject>& v) {
  using O = Operation;
  v.push_back({"mask_ignored", O::attention, [](const Case& c) {
                 validate(c);
                 return attn_result(c, softmax(scores(c)));
               }});
  v.push_back({"inverted_mask", O::masked_softmax, [](const Case& c) {
                 validate(c);
                 DMatrix S = c.S;
                 if (c.mask)
                   for (Index i = 0; i < S.rows(); ++i)
                     for (Index j = 0; j < S.cols(); ++j)
                       if (!(*c.mask)(i, j)) S(i, j) = NEG_INF;  // True = keep (PyTorch)
                 return weights_result(softmax(S));
               }});
  v.push_back({"mask_transposed", O::attention, [](const Case& c) {
                 validate(c);
                 DMatrix S = scores(c);
                 if (c.mask) {
                   if (c.mask->rows() != S.cols() || c.mask->cols() != S.rows())
                     throw std::invalid_argument("operands could not be broadcast together");
                   for (Index i = 0; i < S.rows(); ++i)
                     for (Index j = 0; j < S.cols(); ++j)
                       if ((*c.mask)(j, i)) S(i, j) = NEG_INF;
                 }
                 return attn_result(c, softmax(S));
               }});
  v.push_back({"mask_on_values", O::attention, [](const Case& c) {
                 validate(c);
                 const DMatrix A = softmax(scores(c));
                 DMatrix Out = DMatrix::Zero(A.rows(), c.V.cols());
                 for (Index i = 0; i < A.rows(); ++i)
                   for (Index j = 0; j < A.cols(); ++j)
                     if (!masked(c, i, j))
                       for (Index l = 0; l < c.V.cols(); ++l) Out(i, l) += A(i, j) * c.V(j, l);
                 return Outcome::make_result(Out, A);
               }});
  v.push_back({"mask_ignored_in_output", O::attention, [](const Case& c) {
                 validate(c);
                 const DMatrix S = scores(c);
                 const DMatrix A = softmax(with_neg_inf(c, S));
                 return Outcome::make_result(times(softmax(S), c.V), A);
               }});
  v.push_back({"causal_assumed", O::attention, [](const Case& c) {
                 validate(c);
                 DMatrix S = scores(c);
                 if (c.mask)
                   for (Index i = 0; i < S.rows(); ++i)
                     for (Index j = i + 1; j < S.cols(); ++j) S(i, j) = NEG_INF;
                 return attn_result(c, softmax(S));
               }});
}

/// Subjects that apply the mask wrongly (the masking families).
void add_masking_subjects(std::vector<KeyedSubject>& v) {
  using O = Operation;
  // F4's starting point: softmax over every key, zero the forbidden weights.
  v.push_back({"post_softmax_mask", O::attention, [](const Case& c) {
                 validate(c);
                 DMatrix A = softmax(scores(c));
                 for (Index i = 0; i < A.rows(); ++i)
                   for (Index j = 0; j < A.cols(); ++j)
                     if (masked(c, i, j)) A(i, j) = 0;
                 return attn_result(c, A);
               }});
  v.push_back({"post_softmax_renormalised", O::attention, [](const Case& c) {
                 validate(c);
                 DMatrix A = softmax(scores(c));
                 for (Index i = 0; i < A.rows(); ++i) {
                   double z = 0;
                   for (Index j = 0; j < A.cols(); ++j) {
                     if (masked(c, i, j)) A(i, j) = 0;
                     z += A(i, j);
                   }
                   for (Index j = 0; j < A.cols(); ++j) A(i, j) /= z;
                 }
                 return attn_result(c, A);
               }});
  v.push_back({"finite_fill", O::attention, [](const Case& c) {
                 validate(c);
                 DMatrix S = scores(c);
                 for (Index i = 0; i < S.rows(); ++i) {
                   bool any = false;
                   for (Index j = 0; j < S.cols(); ++j) {
                     if (masked(c, i, j)) S(i, j) = -1e9;  // masked_fill(-1e9)
                     else any = true;
                   }
                   if (!any) throw std::invalid_argument("row fully masked");
                 }
                 return attn_result(c, softmax(S));
               }});
  // gluon-nlp-style: masked_fill(-1e18), softmax, times the keep mask.
  v.push_back({"fill_then_zeroed", O::attention, [](const Case& c) {
                 validate(c);
                 DMatrix S = scores(c);
                 for (Index i = 0; i < S.rows(); ++i)
                   for (Index j = 0; j < S.cols(); ++j)
                     if (masked(c, i, j)) S(i, j) = -1e18;
                 DMatrix A = softmax(S);
                 for (Index i = 0; i < A.rows(); ++i)
                   for (Index j = 0; j < A.cols(); ++j)
                     if (masked(c, i, j)) A(i, j) = 0;
                 return attn_result(c, A);
               }});
  // AllenNLP-style masked_softmax: multiply by the keep mask, renormalise.
  v.push_back({"multiplicative_mask", O::masked_softmax, [](const Case& c) {
                 validate(c);
                 DMatrix S = c.S;
                 for (Index i = 0; i < S.rows(); ++i)
                   for (Index j = 0; j < S.cols(); ++j) S(i, j) *= masked(c, i, j) ? 0.0 : 1.0;
                 DMatrix A = softmax(S);
                 for (Index i = 0; i < A.rows(); ++i) {
                   double z = 0;
                   for (Index j = 0; j < A.cols(); ++j) {
                     A(i, j) *= masked(c, i, j) ? 0.0 : 1.0;
                     z += A(i, j);
                   }
                   for (Index j = 0; j < A.cols(); ++j) A(i, j) /= (z + 1e-13);
                 }
                 return weights_result(A);
               }});
  v.push_back({"mask_times_inf", O::attention, [](const Case& c) {
                 validate(c);
                 DMatrix S = scores(c);
                 if (c.mask)
                   for (Index i = 0; i < S.rows(); ++i)
                     for (Index j = 0; j < S.cols(); ++j)
                       S(i, j) = S(i, j) + double((*c.mask)(i, j)) * NEG_INF;
                 DMatrix A(S.rows(), S.cols());
                 for (Index i = 0; i < S.rows(); ++i) {  // numpy-like: max propagates NaN
                   double mx = S(i, 0);
                   for (Index j = 0; j < S.cols(); ++j) mx = std::isnan(S(i, j)) || std::isnan(mx) ? NAN : std::max(mx, S(i, j));
                   double z = 0;
                   for (Index j = 0; j < S.cols(); ++j) z += std::exp(S(i, j) - mx);
                   for (Index j = 0; j < S.cols(); ++j) A(i, j) = std::exp(S(i, j) - mx) / z;
                 }
                 return attn_result(c, A);
               }});
  add_mask_placement_subjects(v);
}

/// Subjects that scale or take the softmax wrongly.
void add_scale_and_softmax_subjects(std::vector<KeyedSubject>& v) {
  using O = Operation;
  v.push_back({"wrong_scale", O::attention, [](const Case& c) {
                 validate(c);
                 return attn_result(c, softmax(with_neg_inf(c, scores(c, double(c.Q.cols())))));
               }});
  v.push_back({"no_max_shift", O::softmax_rows, [](const Case& c) {
                 validate(c);
                 DMatrix A(c.S.rows(), c.S.cols());
                 for (Index i = 0; i < A.rows(); ++i) {
                   bool any = false;
                   double z = 0;
                   for (Index j = 0; j < A.cols(); ++j) {
                     any = any || c.S(i, j) != NEG_INF;
                     z += std::exp(c.S(i, j));
                   }
                   if (!any) throw std::invalid_argument("no finite logit");
                   for (Index j = 0; j < A.cols(); ++j) A(i, j) = std::exp(c.S(i, j)) / z;
                 }
                 return weights_result(A);
               }});
  v.push_back({"global_max", O::softmax_rows, [](const Case& c) {
                 validate(c);
                 const double mx = c.S.maxCoeff();
                 DMatrix A(c.S.rows(), c.S.cols());
                 for (Index i = 0; i < A.rows(); ++i) {
                   bool any = false;
                   double z = 0;
                   for (Index j = 0; j < A.cols(); ++j) {
                     any = any || c.S(i, j) != NEG_INF;
                     z += std::exp(c.S(i, j) - mx);
                   }
                   if (!any) throw std::invalid_argument("no finite logit");
                   for (Index j = 0; j < A.cols(); ++j) A(i, j) = std::exp(c.S(i, j) - mx) / z;
                 }
                 return weights_result(A);
               }});
  v.push_back({"global_normaliser", O::attention, [](const Case& c) {
                 validate(c);
                 const DMatrix S = with_neg_inf(c, scores(c));
                 double mx = NEG_INF, z = 0;
                 for (Index i = 0; i < S.rows(); ++i) {
                   double rm = NEG_INF;
                   for (Index j = 0; j < S.cols(); ++j) rm = std::max(rm, S(i, j));
                   if (rm == NEG_INF) throw std::invalid_argument("empty row");
                   mx = std::max(mx, rm);
                 }
                 DMatrix A(S.rows(), S.cols());
                 for (Index i = 0; i < S.rows(); ++i)
                   for (Index j = 0; j < S.cols(); ++j) z += std::exp(S(i, j) - mx);
                 for (Index i = 0; i < S.rows(); ++i)
                   for (Index j = 0; j < S.cols(); ++j) A(i, j) = std::exp(S(i, j) - mx) / z;
                 return attn_result(c, A);
               }});
  v.push_back({"max_over_forbidden", O::masked_softmax, [](const Case& c) {
                 validate(c);
                 DMatrix A(c.S.rows(), c.S.cols());
                 for (Index i = 0; i < A.rows(); ++i) {
                   double mx = NEG_INF, z = 0;
                   bool any = false;
                   for (Index j = 0; j < A.cols(); ++j) {
                     mx = std::max(mx, c.S(i, j));  // forbidden logits included
                     any = any || !masked(c, i, j);
                   }
                   if (!any) throw std::invalid_argument("empty row");
                   for (Index j = 0; j < A.cols(); ++j) z += masked(c, i, j) ? 0 : std::exp(c.S(i, j) - mx);
                   for (Index j = 0; j < A.cols(); ++j)  // 0/z: NaN too when z underflows
                     A(i, j) = (masked(c, i, j) ? 0 : std::exp(c.S(i, j) - mx)) / z;
                 }
                 return weights_result(A);
               }});
  // llm.c-like: float, maxval seeded with -10000.0f.
  v.push_back({"max_floor", O::softmax_rows,
               [](const Case& c) {
                 validate(c);
                 DMatrix A(c.S.rows(), c.S.cols());
                 for (Index i = 0; i < A.rows(); ++i) {
                   float maxval = -10000.0f;
                   bool any = false;
                   for (Index j = 0; j < A.cols(); ++j) {
                     if (float(c.S(i, j)) > maxval) maxval = float(c.S(i, j));
                     any = any || c.S(i, j) != NEG_INF;
                   }
                   if (!any) throw std::invalid_argument("no finite logit");
                   float sum = 0.0f;
                   std::vector<float> e(static_cast<std::size_t>(A.cols()));
                   for (Index j = 0; j < A.cols(); ++j) {
                     e[std::size_t(j)] = std::exp(float(c.S(i, j)) - maxval);
                     sum += e[std::size_t(j)];
                   }
                   const float norm = 1.0f / sum;
                   for (Index j = 0; j < A.cols(); ++j) A(i, j) = double(e[std::size_t(j)] * norm);
                 }
                 return weights_result(A);
               },
               Precision::of_float()});
}

/// Subjects that normalise, return or round wrongly.
void add_normaliser_and_output_subjects(std::vector<KeyedSubject>& v) {
  using O = Operation;
  v.push_back({"wrong_axis", O::softmax_rows, [](const Case& c) {
                 validate(c);
                 DMatrix A(c.S.rows(), c.S.cols());
                 for (Index j = 0; j < A.cols(); ++j) {
                   double mx = NEG_INF, z = 0;
                   for (Index i = 0; i < A.rows(); ++i) mx = std::max(mx, c.S(i, j));
                   for (Index i = 0; i < A.rows(); ++i) z += std::exp(c.S(i, j) - mx);
                   for (Index i = 0; i < A.rows(); ++i) A(i, j) = std::exp(c.S(i, j) - mx) / z;
                 }
                 return weights_result(A);
               }});
  v.push_back({"abs_weights", O::softmax_rows, [](const Case& c) {
                 validate(c);
                 DMatrix A(c.S.rows(), c.S.cols());
                 for (Index i = 0; i < A.rows(); ++i) {
                   double z = 0;
                   for (Index j = 0; j < A.cols(); ++j) z += c.S(i, j) == NEG_INF ? 0 : std::abs(c.S(i, j)) + 1;
                   if (z == 0) throw std::invalid_argument("no finite logit");
                   for (Index j = 0; j < A.cols(); ++j)
                     A(i, j) = (c.S(i, j) == NEG_INF ? 0 : std::abs(c.S(i, j)) + 1) / z;
                 }
                 return weights_result(A);
               }});
  v.push_back({"epsilon_denominator", O::attention, [](const Case& c) {
                 validate(c);
                 const DMatrix S = with_neg_inf(c, scores(c));
                 DMatrix A(S.rows(), S.cols());
                 for (Index i = 0; i < S.rows(); ++i) {
                   double mx = NEG_INF, z = 0;
                   for (Index j = 0; j < S.cols(); ++j) mx = std::max(mx, S(i, j));
                   if (mx == NEG_INF) throw std::invalid_argument("empty row");
                   for (Index j = 0; j < S.cols(); ++j) z += std::exp(S(i, j) - mx);
                   for (Index j = 0; j < S.cols(); ++j) A(i, j) = std::exp(S(i, j) - mx) / (z + 1e-13);
                 }
                 return attn_result(c, A);
               }});
  // softmax1 (Evan Miller's "Attention Is Off By One"): exp(s_j) / (1 + sum_k
  // exp(s_k)), written with the row's maximum; an empty row is 0 / 1 = zeros.
  v.push_back({"quiet_softmax", O::attention, [](const Case& c) {
                 validate(c);
                 const DMatrix S = with_neg_inf(c, scores(c));
                 DMatrix A = DMatrix::Zero(S.rows(), S.cols());
                 for (Index i = 0; i < S.rows(); ++i) {
                   double mx = NEG_INF, z = 0;
                   for (Index j = 0; j < S.cols(); ++j) mx = std::max(mx, S(i, j));
                   if (mx == NEG_INF) continue;  // softmax1 of nothing: zeros
                   for (Index j = 0; j < S.cols(); ++j) z += std::exp(S(i, j) - mx);
                   z += std::exp(-mx);
                   for (Index j = 0; j < S.cols(); ++j) A(i, j) = std::exp(S(i, j) - mx) / z;
                 }
                 return attn_result(c, A);
               }});
  v.push_back({"transposed_output", O::attention, [](const Case& c) {
                 validate(c);
                 const DMatrix A = softmax(with_neg_inf(c, scores(c)));
                 return Outcome::make_result(times(A, c.V), DMatrix(A.transpose()));
               }});
  v.push_back({"outputs_swapped", O::attention, [](const Case& c) {
                 validate(c);
                 const DMatrix A = softmax(with_neg_inf(c, scores(c)));
                 return Outcome::make_result(A, times(A, c.V));
               }});
  v.push_back({"low_precision", O::attention, [](const Case& c) {
                 validate(c);
                 const Index T_q = c.Q.rows(), T_v = c.K.rows(), d = c.Q.cols();
                 const float sq = std::sqrt(float(d));
                 DMatrix A(T_q, T_v), Out(T_q, c.V.cols());
                 for (Index i = 0; i < T_q; ++i) {
                   std::vector<float> s(static_cast<std::size_t>(T_v));
                   float mx = -INFINITY, z = 0;
                   for (Index j = 0; j < T_v; ++j) {
                     float dot = 0;
                     for (Index t = 0; t < d; ++t) dot += float(c.Q(i, t)) * float(c.K(j, t));
                     s[std::size_t(j)] = masked(c, i, j) ? -INFINITY : dot / sq;
                     mx = std::max(mx, s[std::size_t(j)]);
                   }
                   if (mx == -INFINITY) throw std::invalid_argument("empty row");
                   for (Index j = 0; j < T_v; ++j) z += std::exp(s[std::size_t(j)] - mx);
                   for (Index j = 0; j < T_v; ++j) A(i, j) = double(std::exp(s[std::size_t(j)] - mx) / z);
                   for (Index l = 0; l < c.V.cols(); ++l) {
                     float o = 0;
                     for (Index j = 0; j < T_v; ++j) o += float(A(i, j)) * float(c.V(j, l));
                     Out(i, l) = double(o);
                   }
                 }
                 return Outcome::make_result(Out, A);
               }});
  v.push_back({"tiny_positive_exp", O::masked_softmax, [](const Case& c) {
                 validate(c);
                 const DMatrix S = with_neg_inf(c, c.S);
                 DMatrix A(S.rows(), S.cols());
                 auto clamped_exp = [](double x) {  // a vectorised exp that clamps its argument
                   return x < -709.436139303104 ? 5.56268464626800e-309 : std::exp(x);
                 };
                 for (Index i = 0; i < S.rows(); ++i) {
                   double mx = NEG_INF, z = 0;
                   for (Index j = 0; j < S.cols(); ++j) mx = std::max(mx, S(i, j));
                   if (mx == NEG_INF) throw std::invalid_argument("empty row");
                   for (Index j = 0; j < S.cols(); ++j) z += clamped_exp(S(i, j) - mx);
                   for (Index j = 0; j < S.cols(); ++j) A(i, j) = clamped_exp(S(i, j) - mx) / z;
                 }
                 return weights_result(A);
               }});
}

/// Subjects that refuse wrongly, and those of the tiled kernel, multi-head attention and the mask builders.
void add_refusal_tiled_heads_and_builder_subjects(std::vector<KeyedSubject>& v) {
  using O = Operation;
  // Masks before the softmax, but a fully forbidden row silently gets zeros.
  v.push_back({"fully_forbidden_answered", O::attention, [](const Case& c) {
                 validate(c);
                 const DMatrix S = with_neg_inf(c, scores(c));
                 DMatrix A = DMatrix::Zero(S.rows(), S.cols());
                 for (Index i = 0; i < S.rows(); ++i) {
                   double mx = NEG_INF, z = 0;
                   for (Index j = 0; j < S.cols(); ++j) mx = std::max(mx, S(i, j));
                   if (mx == NEG_INF) continue;
                   for (Index j = 0; j < S.cols(); ++j) z += std::exp(S(i, j) - mx);
                   for (Index j = 0; j < S.cols(); ++j) A(i, j) = std::exp(S(i, j) - mx) / z;
                 }
                 return attn_result(c, A);
               }});
  v.push_back({"dk_mismatch_accepted", O::attention, [](const Case& c) {
                 Case t = c;
                 const Index d = std::min(c.Q.cols(), c.K.cols());
                 t.Q = c.Q.leftCols(d);
                 t.K = c.K.leftCols(d);
                 validate(t);
                 return attn_result(t, softmax(with_neg_inf(t, scores(t))));
               }});
  v.push_back({"non_finite_swallowed", O::attention, [](const Case& c) {
                 Case t = c;  // np.nan_to_num on the inputs
                 for (DMatrix* M : {&t.Q, &t.K, &t.V})
                   for (Index i = 0; i < M->rows(); ++i)
                     for (Index j = 0; j < M->cols(); ++j)
                       if (!std::isfinite((*M)(i, j))) (*M)(i, j) = 0;
                 validate(t);
                 return attn_result(t, softmax(with_neg_inf(t, scores(t))));
               }});
  v.push_back({"tiled_no_rescale", O::attention_tiled, [](const Case& c) { return tiled(c, 1); }});
  v.push_back({"tiled_forbidden_tile_nan", O::attention_tiled, [](const Case& c) { return tiled(c, 2); }});
  v.push_back({"tiled_forbidden_tile_nan", O::attention_tiled, [](const Case& c) { return tiled(c, 4); }});
  v.push_back({"tiled_last_tile_dropped", O::attention_tiled, [](const Case& c) { return tiled(c, 3); }});
  v.push_back({"mh_heads_reversed", O::multi_head_attention, [](const Case& c) { return multi_head(c, 1); }});
  v.push_back({"mh_one_wo_per_head", O::multi_head_attention, [](const Case& c) { return multi_head(c, 2); }});
  v.push_back({"mh_scale_by_d_model", O::multi_head_attention, [](const Case& c) { return multi_head(c, 3); }});
  v.push_back({"mh_mask_not_forwarded", O::multi_head_attention, [](const Case& c) { return multi_head(c, 4); }});
  v.push_back({"causal_alignment", O::causal_mask, [](const Case& c) { return build_mask(c, 1); }});
  v.push_back({"diagonal_forbidden", O::causal_mask, [](const Case& c) { return build_mask(c, 2); }});
  v.push_back({"triangle_reversed", O::causal_mask, [](const Case& c) { return build_mask(c, 3); }});
  v.push_back({"padding_off_by_one", O::padding_mask, [](const Case& c) { return build_mask(c, 1); }});
  v.push_back({"padding_on_queries", O::padding_mask, [](const Case& c) { return build_mask(c, 2); }});
}

}  // namespace

std::vector<KeyedSubject> keyed_subjects() {
  std::vector<KeyedSubject> v;
  add_masking_subjects(v);
  add_scale_and_softmax_subjects(v);
  add_normaliser_and_output_subjects(v);
  add_refusal_tiled_heads_and_builder_subjects(v);
  return v;
}

void softmax_row_and_output(const Case& c, Index i, const std::vector<double>& s,
                            const std::function<double(double)>& r, DMatrix& A, DMatrix& O) {
  const Index T_v = c.K.rows(), d_v = c.V.cols();
  double m = -std::numeric_limits<double>::infinity();
  for (double x : s) m = std::max(m, x);
  double z = 0;
  for (double x : s) z = r(z + r(std::exp(r(x - m))));
  for (Index j = 0; j < T_v; ++j) A(i, j) = r(r(std::exp(r(s[std::size_t(j)] - m))) / z);
  for (Index k = 0; k < d_v; ++k) {
    double o = 0;
    for (Index j = 0; j < T_v; ++j) o = r(o + r(A(i, j) * c.V(j, k)));
    O(i, k) = o;
  }
}

Case two_allowed_one_forbidden(double allowed) {
  Case c;
  c.op = Operation::attention;
  c.Q = DMatrix::Constant(1, 1, 1.0);
  c.K = DMatrix(3, 1);
  c.K << allowed, allowed, 0;
  c.V = DMatrix(3, 1);
  c.V << 1, 2, 4;
  attn::Mask M(1, 3);
  M << false, false, true;
  c.mask = M;
  return c;
}

}  // namespace mis_test
