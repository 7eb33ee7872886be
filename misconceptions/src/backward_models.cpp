// Models of the backward pass's mistakes (backward_models.hpp).
#include "backward_models.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "attn/ref/backward_bound.hpp"
#include "attn/ref/oracle_backward.hpp"

namespace attn::mis::detail {
namespace {

constexpr double bw_kInf = std::numeric_limits<double>::infinity();

struct bw_Grads {
  DMatrix dQ, dK, dV;
  /// The same products on absolute values (|P| o (|dO| |V|^T + |D|) for dS,
  /// then |dS| |K|, |dS|^T |Q|, |P|^T |dO|): the scale of the rounding of
  /// the model's own steps, which exceeds |dQ|, |dK| when dS = P o (dP - D)
  /// cancels under weights P far above 1 (a recomputation without the scale).
  DMatrix aQ, aK, aV;
};

bool bw_forbidden(const Case& c, Index i, Index j) { return c.mask && (*c.mask)(i, j); }

bool bw_has_fully_forbidden_row(const Case& c) {
  if (!c.mask) return false;
  for (Index i = 0; i < c.mask->rows(); ++i)
    if (c.mask->cols() > 0 && c.mask->row(i).all()) return true;
  return false;
}

/// D, one value per (i, j) as the mistake `k.d` reads it, from the
/// backward's weights Pb, dP = dO V^T, dO and O (T_q x T_v).
DMatrix bw_d(const BackwardKnobs& k, const DMatrix& Pb, const DMatrix& dP, const DMatrix& dO,
             const DMatrix& O) {
  const Index T_q = Pb.rows(), T_v = Pb.cols();
  DMatrix D(T_q, T_v);
  using DK = BackwardKnobs::D;
  for (Index i = 0; i < T_q; ++i) {
    double row = 0;
    switch (k.d) {
      case DK::definition: row = dO.row(i).dot(O.row(i)); break;
      case DK::zero: row = 0; break;
      case DK::rowsum_p: row = Pb.row(i).sum(); break;
      case DK::rowsum_dp: row = dP.row(i).sum(); break;
      case DK::rowsum_do: row = dO.row(i).sum(); break;
      case DK::per_column:
      case DK::per_tile: break;
    }
    for (Index j = 0; j < T_v; ++j) D(i, j) = row;
  }
  if (k.d == DK::per_column)
    for (Index j = 0; j < T_v; ++j) D.col(j).setConstant(Pb.col(j).dot(dP.col(j)));
  if (k.d == DK::per_tile)
    for (Index i = 0; i < T_q; ++i)
      for (Index j0 = 0; j0 < T_v; j0 += k.tile) {
        const Index j1 = std::min(j0 + k.tile, T_v);
        double t = 0;
        for (Index j = j0; j < j1; ++j) t += Pb(i, j) * dP(i, j);
        for (Index j = j0; j < j1; ++j) D(i, j) = t;
      }
  return D;
}

/// dS from the backward's weights Pb, dP and D (T_q x T_v).
DMatrix bw_ds(const BackwardKnobs& k, const DMatrix& Pb, const DMatrix& dP, const DMatrix& D) {
  if (k.jacobian_diagonal) return (Pb.array() * (1.0 - Pb.array()) * dP.array()).matrix();
  return (Pb.array() * (dP.array() - D.array())).matrix();
}

/// dQ, dK, dV from dS, the weights (Pb, and E for dv_unnormalised) and dO;
/// `sc` the logits' scale. Also serves the absolute values (bw_Grads::aQ...).
void bw_products(const Case& c, const BackwardKnobs& k, double sc, const DMatrix& Pb, const DMatrix& E,
                 const DMatrix& dO, const DMatrix& dS, const DMatrix& Q, const DMatrix& K,
                 DMatrix& dQ, DMatrix& dK, DMatrix& dV) {
  if (k.dv_untransposed) {
    dV = Pb * dO;
  } else if (k.dv_unnormalised) {
    dV = E.transpose() * dO;
  } else if (k.dv_narrow) {
    dV = DMatrix::Zero(c.K.rows(), dO.cols());
    for (Index i = 0; i < Pb.rows(); ++i)
      for (Index j = 0; j < Pb.cols(); ++j)
        for (Index l = 0; l < dO.cols(); ++l)
          dV(j, l) = ref::round_to_format(
              k.dv_format, dV(j, l) + ref::round_to_format(k.dv_format, Pb(i, j) * dO(i, l)));
  } else {
    dV = Pb.transpose() * dO;
  }
  dQ = std::pow(sc, k.dq_scale_power) * (dS * K);
  dK = std::pow(sc, k.dk_scale_power) * (k.dk_untransposed ? DMatrix(dS * Q) : DMatrix(dS.transpose() * Q));
}

/// The gradients with knobs k, in double; nullopt when a product's shapes
/// do not fit (dV = P dO or dK = c dS Q with T_q != T_v).
std::optional<bw_Grads> bw_compute(const Case& c, const BackwardKnobs& k) {
  const Index T_q = c.Q.rows(), T_v = c.K.rows(), d_k = c.Q.cols(), d_v = c.V.cols();
  if ((k.dv_untransposed || k.dk_untransposed) && T_q != T_v) return std::nullopt;
  const double sc = 1.0 / std::sqrt(double(d_k));
  DMatrix dO = c.dO;
  if (k.do_transposed)  // entry (i, l) read from position l T_q + i of the row-major buffer
    for (Index i = 0; i < T_q; ++i)
      for (Index l = 0; l < d_v; ++l) dO(i, l) = c.dO.data()[l * T_q + i];
  const DMatrix raw = sc * (c.Q * c.K.transpose());  // S = c Q K^T
  DMatrix S = raw;
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j)
      if (bw_forbidden(c, i, j))
        S(i, j) = k.fill == BackwardKnobs::Fill::neg_inf  ? -bw_kInf
                  : k.fill == BackwardKnobs::Fill::finite ? k.fill_value
                                                           : 0.0;
  // The forward: weights P (and E = exp(S - m), L = m + log l).
  DMatrix P(T_q, T_v), E(T_q, T_v);
  Eigen::VectorXd L(T_q);
  for (Index i = 0; i < T_q; ++i) {
    const double m = k.no_max_shift ? 0.0 : S.row(i).maxCoeff();
    double l = 0;
    for (Index j = 0; j < T_v; ++j) l += (E(i, j) = std::exp(S(i, j) - m));
    P.row(i) = E.row(i) / l;
    L(i) = m + std::log(l);
  }
  const DMatrix O = P * c.V;
  // The backward's weights: the forward's, or recomputed as exp(S - L).
  DMatrix Pb = P;
  using R = BackwardKnobs::Recompute;
  if (k.recompute != R::same) {
    for (Index i = 0; i < T_q; ++i) {
      double Li = L(i);
      if (k.recompute == R::lse_unscaled || k.recompute == R::lse_no_max) {
        const double f = k.recompute == R::lse_unscaled ? 1.0 / sc : 1.0;
        double m = k.recompute == R::lse_unscaled ? -bw_kInf : 0.0;
        if (k.recompute == R::lse_unscaled)
          for (Index j = 0; j < T_v; ++j)
            if (!bw_forbidden(c, i, j)) m = std::max(m, raw(i, j) * f);
        double l = 0;
        for (Index j = 0; j < T_v; ++j)
          if (!bw_forbidden(c, i, j)) l += std::exp(raw(i, j) * f - m);
        Li = m + std::log(l);
      }
      for (Index j = 0; j < T_v; ++j) {
        const double s = k.recompute == R::logits_unscaled ? raw(i, j) / sc : raw(i, j);
        Pb(i, j) = bw_forbidden(c, i, j) && k.recompute != R::mask_ignored ? 0.0 : std::exp(s - Li);
      }
    }
  }
  if (k.skip_tile_end)
    for (Index j = 0; j < T_v; ++j)
      if (j % k.tile == k.tile - 1 || j == T_v - 1) Pb.col(j).setZero();
  const DMatrix dP = dO * c.V.transpose();
  bw_Grads g;
  bw_products(c, k, sc, Pb, E, dO, bw_ds(k, Pb, dP, bw_d(k, Pb, dP, dO, O)), c.Q, c.K, g.dQ, g.dK, g.dV);
  // The same steps on absolute values: |D| of |Pb|, |dO| |V|^T, |dO| and
  // |P| |V| (O's own rounding), and dS's two terms added, not subtracted.
  const DMatrix aPb = Pb.cwiseAbs(), adO = dO.cwiseAbs(), adP = adO * c.V.cwiseAbs().transpose();
  const DMatrix aD = bw_d(k, aPb, adP, adO, P.cwiseAbs() * c.V.cwiseAbs()).cwiseAbs();
  const DMatrix adS = k.jacobian_diagonal
                          ? DMatrix(aPb.array() * (1.0 + aPb.array()) * adP.array())
                          : DMatrix(aPb.array() * (adP.array() + aD.array()));
  BackwardKnobs ka = k;
  ka.dv_narrow = false;  // its own rounding is added apart (bw_predict_backward)
  bw_products(c, ka, sc, aPb, E.cwiseAbs(), adO, adS, c.Q.cwiseAbs(), c.K.cwiseAbs(), g.aQ, g.aK, g.aV);
  return g;
}

/// The oracle's gradients and the declared precision's bound, cached by
/// case (every model of a battery asks for the same few cases).
struct bw_Expected {
  DMatrix dQ, dK, dV;        ///< the exact gradients, rounded to double
  DMatrix bQ, bK, bV;        ///< their a-priori bounds
};

void bw_put(std::string& key, const DMatrix& M) {
  key += std::to_string(M.rows()) + "x" + std::to_string(M.cols()) + ":";
  const std::size_t at = key.size(), n = std::size_t(M.size()) * sizeof(double);
  key.resize(at + n);
  if (n) std::memcpy(&key[at], M.data(), n);
}

std::shared_ptr<const bw_Expected> bw_expected(const Case& c, const Precision& p) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const bw_Expected>> cache;
  std::string key = std::to_string(int(p.storage)) + "," + std::to_string(int(p.accumulate)) + "|";
  for (const DMatrix* M : {&c.Q, &c.K, &c.V, &c.dO}) bw_put(key, *M);
  if (c.mask)
    for (Index i = 0; i < c.mask->size(); ++i) key += c.mask->data()[i] ? '1' : '0';
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const ref::ExactGradients x = ref::exact_attention_backward(c.Q, c.K, c.V, c.dO, c.mask);
  const ref::AttentionBackwardBound b =
      ref::attention_backward_error_bound(c.Q, c.K, c.V, c.dO, x, p.model());
  auto e = std::make_shared<bw_Expected>();
  e->dQ = ref::to_double(x.dQ);
  e->dK = ref::to_double(x.dK);
  e->dV = ref::to_double(x.dV);
  e->bQ = b.dQ;
  e->bK = b.dK;
  e->bV = b.dV;
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() > 256) cache.clear();
  cache[key] = e;
  return e;
}

double bw_max_finite(const DMatrix& M) {
  double m = 0;
  for (Index i = 0; i < M.size(); ++i)
    if (std::isfinite(M.data()[i])) m = std::max(m, std::abs(M.data()[i]));
  return m;
}

/// The model's tolerance for one gradient (backward_models.hpp, backward_model):
/// `abs` is the gradient's products on absolute values (bw_Grads::aQ...),
/// whose sums' rounding (n u: `n_u_sums`) adds where finite.
DMatrix bw_tolerance(const DMatrix& model, const DMatrix& exact, const DMatrix& bound, bool correct,
                     double n_u, const DMatrix& abs, double n_u_sums) {
  if (correct) return bound;
  const double mm = bw_max_finite(model), me = bw_max_finite(exact);
  const double r = me > 0 ? std::max(1.0, mm / me) : 1.0;
  const DMatrix own = abs.unaryExpr([](double x) { return std::isfinite(x) ? x : 0.0; });
  return (r * bound).array() + 4.0 * n_u * mm + 4.0 * n_u_sums * own.array();
}

Prediction bw_predict_backward(const Case& c, const Precision& declared, const BackwardKnobs& k,
                            bool correct) {
  if (c.op != Operation::attention_backward)
    throw std::invalid_argument("a backward model predicts attention_backward only");
  Prediction p;
  if (bw_has_fully_forbidden_row(c)) {
    p.no_claim = true;
    return p;
  }
  std::shared_ptr<const bw_Expected> e;
  try {
    e = bw_expected(c, declared);
  } catch (const std::exception&) {
    p.no_claim = true;  // no answer of the definition (a shape or a non-finite input)
    return p;
  }
  const std::optional<bw_Grads> g = bw_compute(c, k);
  if (!g) {
    p.may_refuse = true;
    return p;
  }
  p.has_answer = true;
  p.answer = Outcome::make_gradients(g->dQ, g->dK, g->dV);
  // n u (1 + W): sums of n terms, and the argument error u W of an
  // exponential of logits up to W in magnitude (TOLERANCE.md's u (W + E)).
  const double n = double(c.Q.rows() + c.K.rows() + c.Q.cols() + c.V.cols());
  const double W = (c.Q * c.K.transpose()).cwiseAbs().maxCoeff() / std::sqrt(double(c.Q.cols()));
  const double n_u = n * ref::format_info(declared.accumulate).unit_roundoff * (1.0 + W);
  // n u alone on the absolute values: the sums' rounding (the exponentials'
  // argument error is relative to the weights, in the term above).
  const double n_u_sums = n * ref::format_info(declared.accumulate).unit_roundoff;
  p.tol_dQ = bw_tolerance(g->dQ, e->dQ, e->bQ, correct, n_u, g->aQ, n_u_sums);
  p.tol_dK = bw_tolerance(g->dK, e->dK, e->bK, correct, n_u, g->aK, n_u_sums);
  p.tol_dV = bw_tolerance(g->dV, e->dV, e->bV, correct, n_u, g->aV, n_u_sums);
  if (k.dv_narrow) {
    // Two units of the narrow format on |P|^T |dO|: the subject's P differs
    // from the model's double P by its own rounding, which may move a
    // rounding of the narrow sum.
    // Separation is judged with the declared precision's tolerance.
    p.separation_tol_dV = p.tol_dV;
    Case a = c;
    a.dO = c.dO.cwiseAbs();
    const DMatrix sum_abs = bw_compute(a, BackwardKnobs{})->dV;  // |P|^T |dO|
    const double u = ref::format_info(k.dv_format).unit_roundoff;
    p.tol_dV += 2.0 * u * sum_abs;
  }
  return p;
}

}  // namespace

Model backward_model(const std::string& key, std::vector<Param> params, BackwardKnobs k) {
  Model m;
  m.key = key;
  m.params = std::move(params);
  m.predict = [k](const Case& c, const Precision& declared) {
    return bw_predict_backward(c, declared, k, false);
  };
  return m;
}

Model backward_correct_model() {
  Model m;
  m.key = "correct";
  m.predict = [](const Case& c, const Precision& declared) {
    return bw_predict_backward(c, declared, BackwardKnobs{}, true);
  };
  return m;
}

namespace {

/// Values in {-2, -1.75, ..., 2} (a fixed linear congruential sequence).
struct bw_Quarters {
  std::uint64_t s;
  explicit bw_Quarters(std::uint64_t seed) : s(seed) {}
  double next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return double(int((s >> 33) % 17) - 8) / 4.0;
  }
  DMatrix matrix(Index r, Index c) {
    DMatrix M(r, c);
    for (Index i = 0; i < r; ++i)
      for (Index j = 0; j < c; ++j) M(i, j) = next();
    return M;
  }
};

Case bw_case(const char* tag, DMatrix Q, DMatrix K, DMatrix V, DMatrix dO,
             std::optional<Mask> mask = std::nullopt) {
  Case c;
  c.op = Operation::attention_backward;
  c.Q = std::move(Q);
  c.K = std::move(K);
  c.V = std::move(V);
  c.dO = std::move(dO);
  c.mask = std::move(mask);
  c.tags = {tag};
  return c;
}

/// A non-symmetric mask: key T_v - 1 forbidden to every query, and a
/// staircase; every row keeps its key i % (T_v - 1).
Mask bw_staircase_mask(Index T_q, Index T_v) {
  Mask M(T_q, T_v);
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_v; ++j) M(i, j) = j == T_v - 1 || (j + 2 * i) % 3 == 0;
  for (Index i = 0; i < T_q; ++i) M(i, i % (T_v - 1)) = false;
  return M;
}

}  // namespace

std::vector<Case> backward_candidate_cases(const Precision& declared) {
  bw_Quarters r(20261204);
  std::vector<Case> v;
  // Generic: T_q != T_v, d_k != d_v, no mask (the D mistakes, the scale,
  // the recomputation, dO's layout, a D or a tile over 4 keys).
  v.push_back(bw_case("generic", r.matrix(3, 4), r.matrix(6, 4), r.matrix(6, 2), r.matrix(3, 2)));
  v.push_back(bw_case("T_q > T_v", r.matrix(6, 2), r.matrix(3, 2), r.matrix(3, 4), r.matrix(6, 4)));
  // Square, where the untransposed products fit; plain and masked.
  v.push_back(bw_case("square", r.matrix(4, 2), r.matrix(4, 2), r.matrix(4, 3), r.matrix(4, 3)));
  v.push_back(bw_case("square masked", r.matrix(5, 3), r.matrix(5, 3), r.matrix(5, 2),
                      r.matrix(5, 2), bw_staircase_mask(5, 5)));
  v.push_back(bw_case("masked T_q != T_v", r.matrix(4, 3), r.matrix(7, 3), r.matrix(7, 2),
                      r.matrix(4, 2), bw_staircase_mask(4, 7)));
  // Long rows: the key tile's width (4 to 64) of a per-tile mistake.
  v.push_back(bw_case("long rows", r.matrix(2, 2), r.matrix(70, 2), r.matrix(70, 3), r.matrix(2, 3)));
  // Allowed logits far below a finite fill (-1e4, then -1e9).
  for (double level : {100.0, 40000.0}) {
    DMatrix Q(3, 2), K(5, 2);
    const double dq[3][2] = {{0, 0}, {4, -4}, {-4, 8}}, dk[5][2] = {{0, 0}, {-4, 0}, {0, -8}, {-12, 0}, {0, 4}};
    const double step = level / 100;
    for (Index i = 0; i < 3; ++i)
      for (Index l = 0; l < 2; ++l) Q(i, l) = level + step * dq[i][l];
    for (Index j = 0; j < 5; ++j)
      for (Index l = 0; l < 2; ++l) K(j, l) = -level + step * dk[j][l];
    v.push_back(bw_case(level < 1000 ? "logits near -1.4e4" : "logits near -2e9", Q, K,
                        r.matrix(5, 2), r.matrix(3, 2), bw_staircase_mask(3, 5)));
  }
  // Logits past exp's range: above log(DBL_MAX) ~ 709.8, below -745.
  {
    DMatrix Q(2, 1), K(4, 1);
    Q << 30, 0.5;
    K << 25, 26, 27, -1;
    v.push_back(bw_case("logits above 709", Q, K, r.matrix(4, 2), r.matrix(2, 2)));
    K << -25, -26, -27, -28;
    v.push_back(bw_case("logits below -745", Q, K, r.matrix(4, 2), r.matrix(2, 2)));
  }
  std::vector<Case> out;
  for (Case& c : v) {
    bool fits = true;
    for (const DMatrix* M : {&c.Q, &c.K, &c.V, &c.dO})
      for (Index i = 0; i < M->size(); ++i)
        fits = fits && declared.round(M->data()[i]) == M->data()[i];
    if (fits) out.push_back(std::move(c));
  }
  return out;
}

namespace {

using K = BackwardKnobs;

constexpr const char* alg2 = "FlashAttention-2 (Dao 2023), section 2.2 and Algorithm 2";

/// One model of a family: its fitted parameters and its knobs.
struct BackwardMember {
  std::vector<Param> params;
  K knobs;
};

/// One backward family: the catalogue's key, misconception, source and
/// "told apart from / by" (misconceptions/README.md's table), and its models.
struct BackwardRow {
  const char* key;
  std::string what;
  std::string source;
  const char* apart;
  std::vector<BackwardMember> members;
};

/// A family of one model: the definition with the knobs `k` turned.
std::vector<BackwardMember> one(K k) { return {{{}, k}}; }

/// The key tile widths fitted on a row of 70 keys, each with `base`'s knobs.
std::vector<BackwardMember> key_tiles(K base) {
  std::vector<BackwardMember> v;
  for (Index t : {4, 8, 16, 32, 64}) {
    base.tile = t;
    v.push_back({{{"key tile", double(t), std::to_string(t)}}, base});
  }
  return v;
}

/// c to the power `power` in dQ, in dK, or in both.
std::vector<BackwardMember> scale_powers(int power) {
  std::vector<BackwardMember> v;
  const std::pair<int, const char*> which[] = {{1, "dQ"}, {2, "dK"}, {3, "dQ,dK"}};
  for (const auto& [w, text] : which) {
    K k;
    if (w & 1) k.dq_scale_power = power;
    if (w & 2) k.dk_scale_power = power;
    v.push_back({{{"gradient", double(w), text}}, k});
  }
  return v;
}

/// D_i's mistakes and the Jacobian's: the softmax's gradient dS.
std::vector<BackwardRow> softmax_gradient_rows() {
  const std::string soft = std::string("the softmax's gradient dS = P o (dP - D 1^T), D = rowsum(dO o O); ") + alg2;
  return {
      {"backward_d_term_dropped",
       "The softmax's Jacobian loses its rank-one part: dS = P o dP, D_i = rowsum(dO o O)_i not subtracted.", soft,
       "every D mistake: a generic case (T_q != T_v, d_k != d_v)", one({.d = K::D::zero})},
      {"backward_d_from_p", "D_i is taken as rowsum(P)_i (which is 1) instead of rowsum(dO o O)_i.", soft,
       "backward_d_term_dropped (D = 0); rows whose rowsum(dO o O) is not 1", one({.d = K::D::rowsum_p})},
      {"backward_d_unweighted",
       "D_i is the plain row sum of dP = dO V^T (over every key) instead of sum_j P_ij dP_ij.", soft,
       "backward_d_without_o; rows whose dP entries differ", one({.d = K::D::rowsum_dp})},
      {"backward_d_without_o", "D_i is rowsum(dO)_i: the output O left out of D = rowsum(dO o O).", soft,
       "backward_d_unweighted; V with rows that do not sum to 1", one({.d = K::D::rowsum_do})},
      {"backward_d_wrong_axis",
       "D is summed over the queries (one value per key, sum_i P_ij dP_ij) instead of over each query's keys.",
       soft, "needs T_q > 1; a generic case", one({.d = K::D::per_column})},
      {"backward_d_per_tile",
       "D_i = rowsum(P o dP)_i is computed inside the tile loop, over the current key tile's keys only.",
       std::string("D is a sum over all of the row's keys, computed once before the loops (") + alg2 + ")",
       "needs a row spanning two key tiles; the tile width is fitted on a row of 70 keys",
       key_tiles({.d = K::D::per_tile})},
      {"backward_jacobian_diagonal",
       "The softmax is differentiated entry by entry like a sigmoid: dS_ij = P_ij (1 - P_ij) dP_ij.",
       "the softmax's Jacobian diag(p) - p p^T (Dao et al. 2022, Appendix B.2)",
       "the D mistakes; rows with more than one weighted key", one({.jacobian_diagonal = true})},
  };
}

/// The products' mistakes: the scale in dQ and dK, dV's and dK's
/// products, dO's layout, dV's accumulation type.
std::vector<BackwardRow> product_rows() {
  const std::string chain =
      std::string("the chain rule through S = c Q K^T: dQ = c dS K, dK = c dS^T Q (") + alg2 + ")";
  // dV accumulated in a format narrower than float32 (the table's formats
  // whose unit roundoff is larger: the 16-bit ones); float32 accumulation is
  // what kernels do, and the definition's.
  std::vector<BackwardMember> narrow;
  for (const ref::FormatInfo& info : ref::number_formats()) {
    if (!narrow_accumulator(info)) continue;
    const NumberFormat f = info.format;
    narrow.push_back({{{"dV", double(int(f)), info.name}}, {.dv_narrow = true, .dv_format = f}});
  }
  const std::string narrow_names = ref::format_names("", ", ", narrow_accumulator);
  return {
      {"backward_scale_missing",
       "The logits' scale c = 1/sqrt(d_k) is left out of dQ = c dS K, of dK = c dS^T Q, or of both.", chain,
       "needs d_k > 1; which gradient is fitted (dQ, dK or both)", scale_powers(0)},
      {"backward_scale_twice",
       "The scale c is applied twice (to dS and again in the product), so dQ or dK carries c^2 = 1/d_k.", chain,
       "needs d_k > 1; which gradient is fitted (dQ, dK or both)", scale_powers(2)},
      {"backward_dv_unnormalised",
       "dV is accumulated from the exponentials E = exp(S - m) before their division by the row sum: dV = E^T dO.",
       "O = P V with P = softmax(S) row by row (section 32.2.3), so dV = P^T dO",
       "rows with more than one weighted key (row sum l_i > 1)", one({.dv_unnormalised = true})},
      {"backward_dv_untransposed",
       "dV is computed as P dO instead of P^T dO (written for T_q = T_v; the shapes do not fit otherwise).",
       std::string("dV = P^T dO (") + alg2 + ")",
       "a square case (T_q = T_v) with a non-symmetric P; elsewhere a refusal or a crash",
       one({.dv_untransposed = true})},
      {"backward_dk_untransposed",
       "dK is computed as c dS Q instead of c dS^T Q (written for T_q = T_v; the shapes do not fit otherwise).",
       std::string("dK = c dS^T Q (") + alg2 + ")",
       "a square case (T_q = T_v) with a non-symmetric dS; elsewhere a refusal or a crash",
       one({.dk_untransposed = true})},
      {"backward_do_transposed",
       "dO's row-major buffer is read column-major (Eigen's default Map): the gradient used is another dO.",
       "the upstream gradient is dO as given (exercises/B1/attention_backward.hpp: row-major, row i is token i)",
       "needs T_q > 1 and d_v > 1", one({.do_transposed = true})},
      {"backward_low_precision_accumulation",
       "dV = P^T dO is accumulated over the query rows in a narrower type (" + narrow_names +
           ") than the declared one.",
       "reference/TOLERANCE.md, \"The backward pass\" (the bound is for the declared unit roundoff)",
       "only dV departs, by the narrow type's rounding; the type is fitted", narrow},
  };
}

/// The recomputed weights' mistakes: the mask, the maximum, the logsumexp,
/// the tiles.
std::vector<BackwardRow> recompute_rows() {
  const std::string same_weights = std::string("the recomputed weights are the forward's");
  std::vector<BackwardMember> fills;
  for (const auto& [f, t] : {std::pair<double, const char*>{-1e4, "-1e4"}, {-1e9, "-1e9"}})
    fills.push_back({{{"fill", f, t}}, {.fill = K::Fill::finite, .fill_value = f}});
  return {
      {"backward_finite_mask_value",
       "Forbidden logits are filled with a finite stand-in for -inf (-1e4, -1e9) in the backward's P as in the "
       "forward.",
       "Lemma 2, section 32.2.4 (a forbidden key has weight exactly 0)",
       "allowed logits below the fill (near -1.4e4, near -2e9) tell the fills apart; a fill of 0 is "
       "backward_mask_by_multiplication",
       fills},
      {"backward_mask_by_multiplication",
       "The mask is applied by multiplying the logits by the keep indicator, so a forbidden logit is 0, not -inf.",
       "Lemma 2, section 32.2.4 (a forbidden key has weight exactly 0)",
       "backward_mask_not_in_recompute (the forward's O is masked there); any mask",
       one({.fill = K::Fill::times_keep})},
      {"backward_mask_not_in_recompute",
       "The forward masks, but the backward's recomputed P = exp(S - L) leaves the mask out.",
       same_weights + " (" + alg2 + "; Lemma 2, section 32.2.4)", "backward_mask_by_multiplication; any mask",
       one({.recompute = K::Recompute::mask_ignored})},
      {"backward_no_max_shift",
       "The weights are exp(S) / rowsum(exp(S)), or the saved logsumexp is log rowsum(exp(S)), without the row's "
       "maximum taken out: overflow past logits of 709, underflow below -745.",
       "shift invariance and the stable softmax, section 32.2.4; L = m + log rowsum(exp(S - m)) (FlashAttention-2, "
       "Algorithm 2)",
       "logits above 709 and below -745; the form is fitted (NaN, or gradients 0, past the overflow)",
       {{{{"weights", 1, "exp(S) / rowsum(exp(S))"}}, {.no_max_shift = true}},
        {{{"weights", 2, "exp(S - log rowsum(exp(S)))"}}, {.recompute = K::Recompute::lse_no_max}}}},
      {"backward_lse_unscaled",
       "The saved logsumexp is that of the unscaled logits Q K^T, and the backward recomputes P = exp(c Q K^T - L).",
       same_weights + ": L_i = log sum_j exp(c Q_i . K_j) (" + alg2 + ")", "backward_recompute_unscaled; needs d_k > 1",
       one({.recompute = K::Recompute::lse_unscaled})},
      {"backward_recompute_unscaled",
       "The backward recomputes P = exp(Q K^T - L) without the scale c, while L is the logsumexp of the scaled "
       "logits.",
       same_weights + ": P_ij = exp(c Q_i . K_j - L_i) (" + alg2 + ")", "backward_lse_unscaled; needs d_k > 1",
       one({.recompute = K::Recompute::logits_unscaled})},
      {"backward_tile_boundary",
       "A key tile's end is taken as its last key (inclusive) and used as an exclusive bound: the last key of every "
       "key tile is skipped.",
       std::string("every allowed (query, key) pair contributes to dQ, dK, dV once (") + alg2 + ")",
       "any shape (the last key is always skipped); the tile width is fitted on a row of 70 keys",
       key_tiles({.skip_tile_end = true})},
  };
}

}  // namespace

bool narrow_accumulator(const ref::FormatInfo& f) {
  return f.unit_roundoff > ref::format_info(NumberFormat::float32).unit_roundoff;
}

void add_backward_families(std::vector<Family>& out) {
  const std::vector<Operation> ops = {Operation::attention_backward};
  for (auto rows : {softmax_gradient_rows, product_rows, recompute_rows})
    for (BackwardRow& r : rows()) {
      const std::string key = r.key;
      out.push_back(family(key, std::move(r.what), std::move(r.source), r.apart, ops,
                           [key, members = std::move(r.members)](Operation) {
                             std::vector<Model> v;
                             for (const BackwardMember& m : members) v.push_back(backward_model(key, m.params, m.knobs));
                             return v;
                           }));
    }
}

}  // namespace attn::mis::detail
