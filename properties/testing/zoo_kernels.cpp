// The in-process zoo of correct attention implementations (zoo_kernels.hpp).
// One engine, zoo_attention, takes a member's order of arithmetic; each pass
// is numbered as in reference/TOLERANCE.md.
#include "zoo_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include <Eigen/Core>

namespace attn::prop::testing {

const std::vector<ZooMember>& zoo_members() {
  using D = ZooDot;
  using S = ZooSum;
  using W = ZooWeights;
  static const std::vector<ZooMember> members = {
      {"divide", "the text's stable softmax, p / Z"},
      {"logsumexp", "exp(s - (m + log Z))", D::loop, S::left, W::logsumexp, 0, false, false, false,
       {"row_stochastic", "oracle_agreement"}},
      {"log_softmax", "exp((s - m) - log Z)", D::loop, S::left, W::log_softmax},
      {"reciprocal", "p * (1 / Z)", D::loop, S::left, W::reciprocal},
      {"kahan", "Kahan-compensated Z and A V sums", D::loop, S::kahan},
      {"pairwise", "pairwise (recursive halving) Z and A V sums", D::loop, S::pairwise},
      {"sorted", "Z and A V summed in increasing magnitude", D::loop, S::sorted},
      {"long_double", "long double throughout, rounded at the end", D::loop, S::left, W::divide, 0, true},
      {"online_tile1", "online softmax, key tiles of 1", D::loop, S::left, W::divide, 1},
      {"online_tile3", "online softmax, key tiles of 3", D::loop, S::left, W::divide, 3},
      {"online_tile16", "online softmax, key tiles of 16", D::loop, S::left, W::divide, 16},
      {"online_tile64", "online softmax, key tiles of 64", D::loop, S::left, W::divide, 64},
      {"scale_q_first", "Q * (1 / sqrt(d_k)) before Q K^T", D::scale_q_first},
      {"fma", "std::fma dot products and A V sums", D::fma},
      {"eigen_exp", "Eigen's vectorised exp and sums on a row, forbidden selected to 0",
       D::loop, S::eigen, W::divide, 0, false, true},
      {"deferred", "O = (P V) / Z, A = P / Z", D::loop, S::left, W::divide, 0, false, false, true},
  };
  return members;
}

const ZooMember* find_zoo_member(const std::string& name) {
  for (const ZooMember& m : zoo_members())
    if (m.name == name) return &m;
  return nullptr;
}

namespace {

/// Storage rounding of a 16-bit twin (nullptr: none, the value stays in W).
using Store = double (*)(double) noexcept;

/// x rounded by `store` (a 16-bit twin's storage type), or x itself.
template <class W>
W stored(W x, Store store) {
  return store ? W(store(double(x))) : x;
}

/// x summed in member order `how` (step (4) and (6): any order is within gamma_{n-1}).
template <class W>
W sum_in_order(std::vector<W> x, ZooSum how) {
  switch (how) {
    case ZooSum::kahan: {
      W s = 0, c = 0;
      for (W v : x) {
        const W y = v - c, t = s + y;
        c = (t - s) - y;
        s = t;
      }
      return s;
    }
    case ZooSum::pairwise: {
      auto rec = [&](auto& self, std::size_t lo, std::size_t hi) -> W {
        if (hi - lo == 0) return W(0);
        if (hi - lo == 1) return x[lo];
        const std::size_t mid = lo + (hi - lo) / 2;
        return self(self, lo, mid) + self(self, mid, hi);
      };
      return rec(rec, 0, x.size());
    }
    case ZooSum::sorted:
      std::sort(x.begin(), x.end(), [](W a, W b) { return std::abs(a) < std::abs(b); });
      break;
    case ZooSum::eigen:
      return Eigen::Map<const Eigen::Array<W, Eigen::Dynamic, 1>>(x.data(), Index(x.size())).sum();
    case ZooSum::left:
      break;
  }
  W s = 0;
  for (W v : x) s += v;
  return s;
}

/// The refusals every member shares (zoo_attention's contract).
template <class T>
void check_inputs(const ZooMember& m, const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                  const std::optional<Mask>& mask) {
  const std::string who = "zoo/" + m.name + ": ";
  std::ostringstream shapes;
  shapes << " (Q " << Q.rows() << "x" << Q.cols() << ", K " << K.rows() << "x" << K.cols() << ", V "
         << V.rows() << "x" << V.cols() << ")";
  if (Q.cols() != K.cols()) throw std::invalid_argument(who + "Q and K differ in d_k" + shapes.str());
  if (Q.cols() == 0) throw std::invalid_argument(who + "d_k = 0" + shapes.str());
  if (K.rows() != V.rows()) throw std::invalid_argument(who + "K and V differ in T_v" + shapes.str());
  if (mask && (mask->rows() != Q.rows() || mask->cols() != K.rows()))
    throw std::invalid_argument(who + "the mask is not T_q x T_v" + shapes.str());
  if (!Q.allFinite() || !K.allFinite() || !V.allFinite())
    throw std::domain_error(who + "NaN or Inf in Q, K or V" + shapes.str());
  for (Index i = 0; i < Q.rows(); ++i)
    if (K.rows() == 0 || (mask && mask->row(i).all()))
      throw std::domain_error(who + "every key of query row " + std::to_string(i) + " is forbidden");
}

/// Pass 1: row i of the logits in W (step (1)), -inf where forbidden, and
/// the rule for logits judged on the logit rounded to T.
template <class W, class T>
std::vector<W> logits_row(const ZooMember& m, const Matrix<W>& Q, const Matrix<W>& K,
                          const std::optional<Mask>& mask, Index i) {
  const W inf = std::numeric_limits<W>::infinity();
  const W root = std::sqrt(W(Q.cols())), inv_root = W(1) / root;
  std::vector<W> s(std::size_t(K.rows()), -inf);
  bool any = false;
  for (Index j = 0; j < K.rows(); ++j) {
    if (mask && (*mask)(i, j)) continue;
    W acc = 0;
    for (Index r = 0; r < Q.cols(); ++r) {
      if (m.dot == ZooDot::fma) acc = std::fma(Q(i, r), K(j, r), acc);
      else if (m.dot == ZooDot::scale_q_first) acc += (Q(i, r) * inv_root) * K(j, r);
      else acc += Q(i, r) * K(j, r);
    }
    const W sj = m.dot == ZooDot::scale_q_first ? acc : acc / root;
    const T in_t = static_cast<T>(sj);
    if (std::isnan(in_t) || in_t == std::numeric_limits<T>::infinity())
      throw std::domain_error("zoo/" + m.name + ": logit S(" + std::to_string(i) + ", " +
                              std::to_string(j) + ") is NaN or overflows to +Inf");
    if (in_t == -std::numeric_limits<T>::infinity()) continue;  // weight exactly 0
    s[std::size_t(j)] = sj;
    any = true;
  }
  if (!any)
    throw std::domain_error("zoo/" + m.name + ": every allowed logit of row " + std::to_string(i) +
                            " overflows to -Inf");
  return s;
}

/// Pass 2 (online form): FlashAttention's running max m, running sum l and
/// accumulator over key tiles, then the final division; A = exp(s - m) / l.
/// With `store`, each p is rounded to storage before it multiplies V, and O
/// and A are rounded at the end (TOLERANCE.md, "Storage and accumulation").
template <class W>
void online_row(const ZooMember& mem, const std::vector<W>& s, const Matrix<W>& V, W* O, W* A,
                Store store) {
  const W inf = std::numeric_limits<W>::infinity();
  const Index T_v = Index(s.size()), d_v = V.cols();
  W m = -inf, l = 0;
  std::vector<W> acc(std::size_t(d_v), W(0));
  for (Index j0 = 0; j0 < T_v; j0 += mem.tile) {
    const Index j1 = std::min<Index>(T_v, j0 + mem.tile);
    W m_new = m;
    for (Index j = j0; j < j1; ++j) m_new = std::max(m_new, s[std::size_t(j)]);
    if (m_new == -inf) continue;  // every key so far forbidden
    const W alpha = std::exp(m - m_new);  // 0 for the first tile with an allowed key
    l *= alpha;
    for (W& a : acc) a *= alpha;
    for (Index j = j0; j < j1; ++j) {
      const W p = std::exp(s[std::size_t(j)] - m_new);  // exactly 0 where forbidden
      l += p;
      const W p_s = stored(p, store);
      for (Index q = 0; q < d_v; ++q) acc[std::size_t(q)] += p_s * V(j, q);
    }
    m = m_new;
  }
  for (Index q = 0; q < d_v; ++q) O[q] = stored(acc[std::size_t(q)] / l, store);
  for (Index j = 0; j < T_v; ++j) A[j] = stored(std::exp(s[std::size_t(j)] - m) / l, store);
}

/// Pass 2 (one pass over the row): p = exp(s - m), Z, the weights in the
/// member's form, and O = A V (or (P V) / Z). With `store`, the weights
/// that multiply V (A, or p when deferred) and O are rounded to storage.
template <class W>
void softmax_row(const ZooMember& mem, const std::vector<W>& s, const Matrix<W>& V, W* O, W* A,
                 Store store) {
  const W inf = std::numeric_limits<W>::infinity();
  const Index T_v = Index(s.size()), d_v = V.cols();
  W m = -inf;
  for (W x : s) m = std::max(m, x);  // forbidden entries are -inf
  std::vector<W> p(static_cast<std::size_t>(T_v));
  if (mem.eigen_exp) {
    using Row = Eigen::Array<W, Eigen::Dynamic, 1>;
    const Row x = Eigen::Map<const Row>(s.data(), T_v) - m;
    const Row e = x.exp();  // Eigen's exp(-inf) need not be 0: select after
    Eigen::Map<Row>(p.data(), T_v) = (x == -inf).select(Row::Zero(T_v), e);
  } else {
    for (Index j = 0; j < T_v; ++j) p[std::size_t(j)] = std::exp(s[std::size_t(j)] - m);
  }
  const W Z = sum_in_order(p, mem.sum);
  const W lse = m + std::log(Z), log_Z = std::log(Z), inv_Z = W(1) / Z;
  for (Index j = 0; j < T_v; ++j) {
    const W sj = s[std::size_t(j)], pj = p[std::size_t(j)];
    switch (mem.weights) {
      case ZooWeights::divide: A[j] = pj / Z; break;
      case ZooWeights::reciprocal: A[j] = pj * inv_Z; break;
      case ZooWeights::logsumexp: A[j] = sj == -inf ? W(0) : std::exp(sj - lse); break;
      case ZooWeights::log_softmax: A[j] = sj == -inf ? W(0) : std::exp((sj - m) - log_Z); break;
    }
    A[j] = stored(A[j], store);
    if (mem.deferred) p[std::size_t(j)] = stored(pj, store);
  }
  const W* weights = mem.deferred ? p.data() : A;
  std::vector<W> terms(static_cast<std::size_t>(T_v));
  for (Index q = 0; q < d_v; ++q) {
    W o = 0;
    if (mem.dot == ZooDot::fma) {
      for (Index j = 0; j < T_v; ++j) o = std::fma(weights[j], V(j, q), o);
    } else {
      for (Index j = 0; j < T_v; ++j) terms[std::size_t(j)] = weights[j] * V(j, q);
      o = sum_in_order(terms, mem.sum);
    }
    O[q] = stored(mem.deferred ? o / Z : o, store);
  }
}

/// The member's computation in W (T, or long double), rounded to T.
template <class W, class T>
ZooResult<T> compute(const ZooMember& mem, const Matrix<T>& Qt, const Matrix<T>& Kt,
                     const Matrix<T>& Vt, const std::optional<Mask>& mask, Store store) {
  const Matrix<W> Q = Qt.template cast<W>(), K = Kt.template cast<W>(), V = Vt.template cast<W>();
  Matrix<W> O(Q.rows(), V.cols()), A(Q.rows(), K.rows());
  for (Index i = 0; i < Q.rows(); ++i) {
    const std::vector<W> s = logits_row<W, T>(mem, Q, K, mask, i);
    if (mem.tile > 0) online_row(mem, s, V, O.row(i).data(), A.row(i).data(), store);
    else softmax_row(mem, s, V, O.row(i).data(), A.row(i).data(), store);
  }
  return {O.template cast<T>(), A.template cast<T>()};
}

}  // namespace

template <class T>
ZooResult<T> zoo_attention(const ZooMember& m, const Matrix<T>& Q, const Matrix<T>& K,
                           const Matrix<T>& V, const std::optional<Mask>& mask,
                           std::optional<attn::ref::NumberFormat> storage) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  check_inputs(m, Q, K, V, mask);
  const Store store = storage ? attn::ref::format_info(*storage).round : nullptr;
  return m.long_double ? compute<long double>(m, Q, K, V, mask, store)
                       : compute<T>(m, Q, K, V, mask, store);
}

template <class T>
KernelSubject zoo_subject(const ZooMember& m) {
  return kernel_subject<T>("zoo/" + m.name,
                           [m](const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V,
                               const std::optional<Mask>& mask) { return zoo_attention<T>(m, Q, K, V, mask); });
}

KernelSubject zoo_subject_stored(const ZooMember& m, attn::ref::NumberFormat storage) {
  const attn::ref::FormatInfo& f = attn::ref::format_info(storage);
  if (f.default_accumulate != NumberFormat::float32 || storage == NumberFormat::float32)
    throw std::invalid_argument("zoo_subject_stored: " + std::string(f.name) +
                                " is not a storage type accumulated in float32");
  return kernel_subject<float>("zoo/" + m.name + "/" + f.name, Precision::of(storage),
                               [m, storage](const Matrix<float>& Q, const Matrix<float>& K,
                                            const Matrix<float>& V, const std::optional<Mask>& mask) {
                                 return zoo_attention<float>(m, Q, K, V, mask, storage);
                               });
}

template ZooResult<float> zoo_attention(const ZooMember&, const Matrix<float>&, const Matrix<float>&,
                                        const Matrix<float>&, const std::optional<Mask>&,
                                        std::optional<attn::ref::NumberFormat>);
template ZooResult<double> zoo_attention(const ZooMember&, const Matrix<double>&, const Matrix<double>&,
                                         const Matrix<double>&, const std::optional<Mask>&,
                                         std::optional<attn::ref::NumberFormat>);
template KernelSubject zoo_subject<float>(const ZooMember&);
template KernelSubject zoo_subject<double>(const ZooMember&);

}  // namespace attn::prop::testing
