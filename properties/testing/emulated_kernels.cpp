// The emulated float16/bfloat16 kernels (emulated_kernels.hpp).
#include "emulated_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "attn/prop/lib_subject.hpp"
#include "attn/ref/number_format.hpp"

namespace attn::prop::testing {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// The arithmetic of one run: `st` rounds to storage, `ac` to the
/// accumulation type (float32 itself, or storage for the flawed kernel).
struct Arith {
  NumberFormat storage;
  bool acc_in_storage;
  float st(float x) const { return float(ref::round_to_format(storage, x)); }
  float ac(float x) const { return acc_in_storage ? st(x) : x; }
};

/// The logits row i: (sum_r Q_ir K_jr) / sqrt(d_k), or S's row; -inf where forbidden.
std::vector<float> logits_row(const Case& c, Index i, const Arith& a) {
  const bool given = takes_logits(c.op);
  const Index T_v = given ? c.S.cols() : c.K.rows();
  std::vector<float> s(std::size_t(T_v), kNegInf);
  const float root = given ? 1.0f : a.ac(std::sqrt(float(c.Q.cols())));
  for (Index j = 0; j < T_v; ++j) {
    if (c.mask && (*c.mask)(i, j)) continue;
    if (given) {
      s[std::size_t(j)] = float(c.S(i, j));
      continue;
    }
    float dot = 0;
    for (Index r = 0; r < c.Q.cols(); ++r) dot = a.ac(dot + a.ac(float(c.Q(i, r)) * float(c.K(j, r))));
    s[std::size_t(j)] = a.ac(dot / root);
  }
  return s;
}

}  // namespace

const char* flaw_name(EmulatedFlaw f) {
  switch (f) {
    case EmulatedFlaw::none: return "correct";
    case EmulatedFlaw::accumulates_in_storage: return "accumulates in storage";
    case EmulatedFlaw::no_max_shift: return "no max shift";
  }
  return "?";
}

EmulatedSubject::EmulatedSubject(NumberFormat storage, EmulatedFlaw flaw) : storage_(storage), flaw_(flaw) {
  if (ref::format_info(storage).default_accumulate == storage)
    throw std::invalid_argument(std::string("EmulatedSubject: ") + ref::format_name(storage) +
                                " is not a storage type accumulated in a wider type");
}

std::string EmulatedSubject::name() const {
  return std::string("emulated ") + ref::format_name(storage_) + " kernel (" + flaw_name(flaw_) + ")";
}

bool EmulatedSubject::supports(Operation op) const {
  return op == Operation::attention || op == Operation::attention_tiled ||
         op == Operation::masked_softmax || op == Operation::softmax_rows;
}

Outcome EmulatedSubject::run(const Case& c) {
  if (!supports(c.op)) return Outcome::make_fault("unsupported operation");
  // The library's float path decides every refusal (shapes, fully forbidden
  // rows, non-finite inputs, overflowing logits).
  {
    LibSubject<float> lib;
    Outcome checked = lib.run(c);
    if (checked.kind != Outcome::Kind::result) return checked;
  }
  const Arith a{storage_, flaw_ == EmulatedFlaw::accumulates_in_storage};
  const bool given = takes_logits(c.op);
  const Index T_q = given ? c.S.rows() : c.Q.rows();
  const Index T_v = given ? c.S.cols() : c.K.rows();
  const Index d_v = given ? 0 : c.V.cols();
  DMatrix A = DMatrix::Zero(T_q, T_v), O = DMatrix::Zero(T_q, d_v), lse(T_q, 1);
  const Index tile = c.op == Operation::attention_tiled && c.tile_k > 0 ? c.tile_k : std::max<Index>(T_v, 1);
  for (Index i = 0; i < T_q; ++i) {
    const std::vector<float> s = logits_row(c, i, a);
    // Online softmax over key tiles (one tile unless attention_tiled):
    // running max m, running sum l and accumulator acc, in the accumulation type.
    float m = kNegInf, l = 0;
    std::vector<float> acc(std::size_t(d_v), 0.0f), p(std::size_t(T_v), 0.0f);
    for (Index j0 = 0; j0 < T_v; j0 += tile) {
      const Index j1 = std::min(T_v, j0 + tile);
      float m_new = m;
      for (Index j = j0; j < j1; ++j) m_new = std::max(m_new, s[std::size_t(j)]);
      if (m_new == kNegInf) continue;  // a wholly forbidden tile so far
      if (flaw_ == EmulatedFlaw::no_max_shift) m_new = 0;
      const float alpha = m == kNegInf ? 0.0f : a.ac(std::exp(a.ac(m - m_new)));
      l = a.ac(alpha * l);
      for (float& x : acc) x = a.ac(alpha * x);
      for (Index j = j0; j < j1; ++j) {
        if (s[std::size_t(j)] == kNegInf) continue;
        const float pj = a.ac(std::exp(a.ac(s[std::size_t(j)] - m_new)));
        l = a.ac(l + pj);
        const float stored = a.st(pj);  // P in the storage type before P V
        p[std::size_t(j)] = stored;
        for (Index q = 0; q < d_v; ++q)
          acc[std::size_t(q)] = a.ac(acc[std::size_t(q)] + a.ac(stored * float(c.V(j, q))));
      }
      m = m_new;
    }
    for (Index q = 0; q < d_v; ++q) O(i, q) = a.st(a.ac(acc[std::size_t(q)] / l));
    // The weights of a single-tile run: P / l rounded to storage (the
    // tiled form returns none; its P of earlier tiles is not rescaled here).
    for (Index j = 0; j < T_v; ++j) A(i, j) = a.st(a.ac(p[std::size_t(j)] / l));
    lse(i, 0) = a.ac(m + a.ac(std::log(l)));
  }
  if (c.op == Operation::attention_tiled) {
    Outcome o = Outcome::make_result(O, DMatrix());
    o.logsumexp = lse;
    return o;
  }
  if (given) return Outcome::make_result(DMatrix(), A);
  return Outcome::make_result(O, A);
}

}  // namespace attn::prop::testing
