// Generators of batched_attention cases (generators.hpp, BatchedFocus;
// the operation's conventions: batched.hpp).
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "attn/prop/batched.hpp"
#include "attn/prop/generators.hpp"

namespace attn::prop {

namespace {

/// The mask forms drawn, as the shapes a caller passes (NumPy broadcasting).
enum class MaskForm {
  none,
  q_by_v,          ///< (T_q, T_v)
  one_by_v,        ///< (1, T_v): one row of keys for every query
  n_1_q_v,         ///< (N, 1, T_q, T_v): per sequence, shared by the heads
  one_h_q_v,       ///< (1, H, T_q, T_v): per head, shared by the batch
  n_h_q_v,         ///< (N, H, T_q, T_v): every slice its own
  n_1_1_v,         ///< (N, 1, 1, T_v): key padding per sequence
  one_1_q_v,       ///< (1, 1, T_q, T_v)
};
constexpr int kMaskForms = 8;

std::vector<Index> mask_dims_of(MaskForm f, Index N, Index H, Index T_q, Index T_v) {
  switch (f) {
    case MaskForm::none: return {};
    case MaskForm::q_by_v: return {T_q, T_v};
    case MaskForm::one_by_v: return {1, T_v};
    case MaskForm::n_1_q_v: return {N, 1, T_q, T_v};
    case MaskForm::one_h_q_v: return {1, H, T_q, T_v};
    case MaskForm::n_h_q_v: return {N, H, T_q, T_v};
    case MaskForm::n_1_1_v: return {N, 1, 1, T_v};
    case MaskForm::one_1_q_v: return {1, 1, T_q, T_v};
  }
  return {};
}

std::string dims_tag(const std::vector<Index>& d, MaskForm f) {
  switch (f) {
    case MaskForm::none: return "mask: none";
    case MaskForm::q_by_v: return "mask: (T_q, T_v)";
    case MaskForm::one_by_v: return "mask: (1, T_v)";
    case MaskForm::n_1_q_v: return "mask: (N, 1, T_q, T_v)";
    case MaskForm::one_h_q_v: return "mask: (1, H, T_q, T_v)";
    case MaskForm::n_h_q_v: return "mask: (N, H, T_q, T_v)";
    case MaskForm::n_1_1_v: return "mask: (N, 1, 1, T_v)";
    case MaskForm::one_1_q_v: return "mask: (1, 1, T_q, T_v)";
  }
  (void)d;
  return "";
}

/// Explicit scales: dyadic, so exact in float16 and bfloat16 too.
constexpr double kScales[] = {0.5, 2.0, 0.125, 1.0, 0.375, 0.25};
constexpr int kScaleCount = 6;

/// Integers shrinking towards 0 through 0, -1, 1, -2, 2, ...
rc::Gen<int> zigzag(int max_magnitude) {
  return rc::gen::map(rc::gen::inRange(0, 2 * max_magnitude + 1),
                      [](int z) { return (z % 2 == 0) ? z / 2 : -(z + 1) / 2; });
}

/// Small integers (3 in 4, where shrinking goes) or reals in [-4, 4] on the 2^-18 grid.
rc::Gen<double> value_gen() {
  return rc::gen::weightedOneOf<double>(
      {{3, rc::gen::map(zigzag(4), [](int k) { return double(k); })},
       {1, rc::gen::map(zigzag(1 << 20), [](int k) { return std::ldexp(double(k), -18); })}});
}

/// The drawn sizes and flags of one case, before the focus adjusts them.
struct Draw {
  Index N, H_kv, group, T_q, T_v, d_k, d_v;
  MaskForm mask;
  bool causal, bottom_right;
  int scale;  ///< 0: none; k: kScales[k - 1]
  bool large; ///< large logits (Q and K scaled up)
  bool by_mask;  ///< fully_forbidden: the row is forbidden by the mask, not the causal one
};

rc::Gen<Draw> draw_gen() {
  auto sizes = rc::gen::tuple(rc::gen::inRange<Index>(1, 4), rc::gen::inRange<Index>(1, 4),
                              rc::gen::inRange<Index>(1, 4), rc::gen::inRange<Index>(1, 7),
                              rc::gen::inRange<Index>(1, 7), rc::gen::inRange<Index>(1, 5),
                              rc::gen::inRange<Index>(1, 5));
  auto flags = rc::gen::tuple(rc::gen::inRange(0, kMaskForms), rc::gen::arbitrary<bool>(),
                              rc::gen::arbitrary<bool>(), rc::gen::inRange(0, kScaleCount + 1),
                              // Not scaled by RapidCheck's size: large logits from the first cases on.
                              rc::gen::resize(rc::kNominalSize, rc::gen::inRange(0, 5)),
                              rc::gen::arbitrary<bool>());
  return rc::gen::map(
      rc::gen::tuple(sizes, flags),
      [](const std::tuple<std::tuple<Index, Index, Index, Index, Index, Index, Index>,
                          std::tuple<int, bool, bool, int, int, bool>>& t) {
        const auto& s = std::get<0>(t);
        const auto& f = std::get<1>(t);
        Draw d;
        d.N = std::get<0>(s);
        d.H_kv = std::get<1>(s);
        d.group = std::get<2>(s);
        d.T_q = std::get<3>(s);
        d.T_v = std::get<4>(s);
        d.d_k = std::get<5>(s);
        d.d_v = std::get<6>(s);
        d.mask = static_cast<MaskForm>(std::get<0>(f));
        d.causal = std::get<1>(f);
        d.bottom_right = std::get<2>(f);
        d.scale = std::get<3>(f);
        d.large = std::get<4>(f) == 4;
        d.by_mask = std::get<5>(f);
        return d;
      });
}

/// The focus's constraints on a draw (each keeps the drawn values where it can).
Draw focused(Draw d, BatchedFocus focus) {
  switch (focus) {
    case BatchedFocus::any:
      break;
    case BatchedFocus::grouped_heads:
      d.H_kv = 2 + (d.H_kv - 1) % 2;   // 2 or 3
      d.group = 2 + (d.group - 1) % 2; // 2 or 3
      d.mask = MaskForm::none;
      d.causal = false;
      break;
    case BatchedFocus::causal_alignment:
      d.causal = true;
      d.mask = MaskForm::none;
      if (d.T_q == d.T_v) ++d.T_v;
      break;
    case BatchedFocus::custom_scale:
      if (d.scale == 0) d.scale = 1;
      break;
    case BatchedFocus::broadcast_mask:
      d.causal = false;
      if (d.mask == MaskForm::none) d.mask = MaskForm::n_1_q_v;
      break;
    case BatchedFocus::fully_forbidden:
      if (d.by_mask) {
        if (d.mask == MaskForm::none) d.mask = MaskForm::q_by_v;
        // The mask's row, not the causal mask's first rows.
        if (d.causal && d.bottom_right && d.T_q > d.T_v) std::swap(d.T_q, d.T_v);
      } else {
        d.causal = true;
        d.bottom_right = true;
        if (d.T_q == d.T_v) ++d.T_q;
        if (d.T_q < d.T_v) std::swap(d.T_q, d.T_v);
      }
      break;
  }
  // Bottom-right with T_q > T_v leaves rows without keys: fully_forbidden's alone.
  if (focus != BatchedFocus::fully_forbidden && d.causal && d.bottom_right && d.T_q > d.T_v)
    std::swap(d.T_q, d.T_v);
  return d;
}

/// Key j of head (n, h), query i, is forbidden by the case's mask or causal flag.
bool forbids(const Case& c, Index n, Index h, Index i, Index j) {
  const auto& b = c.batched;
  return mask_forbids(c, n, h, i, j) ||
         (b.causal && causal_forbids(i, j, b.Q[2], b.K[2], b.bottom_right));
}

/// Gives every query row of every head an allowed key back where the mask
/// took the last one: key 0 of the mask entry it reads, when the causal mask
/// allows key 0 (always, except the first T_q - T_v rows of a bottom-right
/// mask with T_q > T_v, which stay fully forbidden).
void repair_mask(Case& c) {
  const auto& b = c.batched;
  if (b.mask_dims.empty()) return;
  Shape4 d = {1, 1, 1, 1};
  const std::size_t rank = b.mask_dims.size();
  for (std::size_t k = 0; k < rank; ++k) d[4 - rank + k] = b.mask_dims[k];
  for (Index n = 0; n < b.Q[0]; ++n)
    for (Index h = 0; h < b.Q[1]; ++h)
      for (Index i = 0; i < b.Q[2]; ++i) {
        if (b.causal && causal_forbids(i, 0, b.Q[2], b.K[2], b.bottom_right)) continue;
        bool all = true;
        for (Index j = 0; j < b.K[2] && all; ++j) all = forbids(c, n, h, i, j);
        if (!all) continue;
        const Index mn = d[0] == 1 ? 0 : n, mh = d[1] == 1 ? 0 : h, mi = d[2] == 1 ? 0 : i;
        (*c.mask)((mn * d[1] + mh) * d[2] + mi, 0) = false;
      }
}

void add_tags(Case& c, const Draw& d, BatchedFocus focus) {
  const auto& b = c.batched;
  const Index H = b.Q[1], H_kv = b.K[1];
  c.tags.push_back(H_kv == 1 && H > 1 ? "heads: H_kv = 1 < H (multi-query)"
                   : H_kv == H        ? "heads: H_kv = H (multi-head)"
                                      : "heads: 1 < H_kv < H (grouped-query)");
  if (b.Q[0] > 1) c.tags.push_back("batch: N > 1");
  c.tags.push_back(b.Q[2] < b.K[2]   ? "shape: T_q < T_v"
                   : b.Q[2] > b.K[2] ? "shape: T_q > T_v"
                                     : "shape: T_q == T_v");
  if (b.causal) c.tags.push_back(b.bottom_right ? "causal: bottom-right" : "causal: top-left");
  c.tags.push_back(dims_tag(b.mask_dims, d.mask));
  c.tags.push_back(b.scale ? "scale: explicit" : "scale: default 1/sqrt(d_k)");
  if (d.large) c.tags.push_back("values: large logits (beyond exp's range unshifted)");
  if (focus == BatchedFocus::fully_forbidden)
    c.tags.push_back(d.by_mask ? "fully forbidden: a mask row"
                               : "fully forbidden: bottom-right causal with T_q > T_v");
}

/// Scale factor of the large-logit regime (generators.cpp's, for Q and K).
double large_scale(const GenConfig& cfg) {
  return cfg.precision.storage == NumberFormat::float64 ? 16.0 : 4.0;
}

}  // namespace

rc::Gen<Case> gen_batched_case(const GenConfig& cfg, BatchedFocus focus) {
  return rc::gen::mapcat(draw_gen(), [cfg, focus](const Draw& drawn) {
    const Draw d = focused(drawn, focus);
    const Index H = d.H_kv * d.group;
    const std::vector<Index> mdims = mask_dims_of(d.mask, d.N, H, d.T_q, d.T_v);
    Index mask_entries = mdims.empty() ? 0 : 1;
    for (Index m : mdims) mask_entries *= m;
    const Index values = d.N * H * d.T_q * d.d_k + d.N * d.H_kv * d.T_v * (d.d_k + d.d_v);
    return rc::gen::map(
        rc::gen::tuple(rc::gen::container<std::vector<double>>(std::size_t(values), value_gen()),
                       rc::gen::container<std::vector<bool>>(std::size_t(mask_entries),
                                                             rc::gen::arbitrary<bool>()),
                       rc::gen::inRange<Index>(0, std::max<Index>(mask_entries, 1))),
        [cfg, focus, d, H, mdims](
            const std::tuple<std::vector<double>, std::vector<bool>, Index>& t) {
          const std::vector<double>& v = std::get<0>(t);
          const std::vector<bool>& bits = std::get<1>(t);
          Case c;
          c.op = Operation::batched_attention;
          auto& b = c.batched;
          b.Q = {d.N, H, d.T_q, d.d_k};
          b.K = {d.N, d.H_kv, d.T_v, d.d_k};
          b.V = {d.N, d.H_kv, d.T_v, d.d_v};
          std::size_t next = 0;
          auto take = [&](const Shape4& s, double factor) {
            DMatrix M(s[0] * s[1] * s[2], s[3]);
            for (Index i = 0; i < M.rows(); ++i)
              for (Index j = 0; j < M.cols(); ++j) M(i, j) = v[next++] * factor;
            return M;
          };
          const double big = d.large ? large_scale(cfg) : 1.0;
          c.Q = take(b.Q, big);
          c.K = take(b.K, big);
          c.V = take(b.V, 1.0);
          b.causal = d.causal;
          b.bottom_right = d.bottom_right;
          if (d.scale > 0) {
            double s = kScales[d.scale - 1];
            // Never the default's value: a kernel ignoring the scale must show.
            if (s * s * double(d.d_k) == 1.0) s *= 2;
            b.scale = s;
          }
          if (!mdims.empty()) {
            b.mask_dims = mdims;
            const Index cols = mdims.back();
            const Index rows = Index(bits.size()) / cols;
            Mask M(rows, cols);
            for (Index i = 0; i < rows; ++i)
              for (Index j = 0; j < cols; ++j) M(i, j) = bits[std::size_t(i * cols + j)];
            if (focus == BatchedFocus::fully_forbidden && d.by_mask)
              M.row(std::get<2>(t) / cols).setConstant(true);
            c.mask = std::move(M);
            if (!(focus == BatchedFocus::fully_forbidden && d.by_mask)) repair_mask(c);
          }
          add_tags(c, d, focus);
          round_to_precision(c, cfg.precision);
          return c;
        });
  });
}

rc::Gen<Case> gen_batched_shape_mismatch_case(const GenConfig& cfg) {
  return rc::gen::mapcat(
      rc::gen::tuple(gen_batched_case(cfg, BatchedFocus::any), rc::gen::inRange(0, 5),
                     rc::gen::inRange<Index>(1, 3)),
      [](const std::tuple<Case, int, Index>& t) {
        Case c = std::get<0>(t);
        const int kind = std::get<1>(t);
        const Index delta = std::get<2>(t);
        auto& b = c.batched;
        // Extra rows or columns are copies of existing ones (valid numbers).
        auto grow_cols = [](const DMatrix& M, Index extra) {
          DMatrix out(M.rows(), M.cols() + extra);
          out.leftCols(M.cols()) = M;
          for (Index k = 0; k < extra; ++k) out.col(M.cols() + k) = M.col(k % M.cols());
          return out;
        };
        switch (kind) {
          case 0: {  // H_kv not dividing H: one more query head than a multiple of H_kv >= 2
            const Index H_kv = std::max<Index>(b.K[1], 2);
            const Index H = H_kv * std::max<Index>(b.Q[1] / std::max<Index>(b.K[1], 1), 1) + 1;
            Case d = c;
            d.batched.Q[1] = H;
            d.batched.K[1] = d.batched.V[1] = H_kv;
            d.Q = stacked_zeros(d.batched.Q);
            d.K = stacked_zeros(d.batched.K);
            d.V = stacked_zeros(d.batched.V);
            for (Index n = 0; n < b.Q[0]; ++n) {
              for (Index h = 0; h < H; ++h)
                set_tensor_slice(d.Q, d.batched.Q, n, h, tensor_slice(c.Q, b.Q, n, h % b.Q[1]));
              for (Index g = 0; g < H_kv; ++g) {
                set_tensor_slice(d.K, d.batched.K, n, g, tensor_slice(c.K, b.K, n, g % b.K[1]));
                set_tensor_slice(d.V, d.batched.V, n, g, tensor_slice(c.V, b.V, n, g % b.K[1]));
              }
            }
            d.batched.mask_dims.clear();
            d.mask.reset();
            d.tags.push_back("shapes: H_kv does not divide H");
            return rc::gen::just(d);
          }
          case 1:  // d_k of K not Q's
            c.K = grow_cols(c.K, delta);
            b.K[3] += delta;
            c.tags.push_back("shapes: d_k of K differs from Q");
            return rc::gen::just(c);
          case 2: {  // a mask that does not broadcast: T_v + delta keys, or H_kv heads (H_kv != 1, H)
            const Index T_q = b.Q[2], T_v = b.K[2];
            const bool by_heads = b.K[1] > 1 && b.K[1] < b.Q[1];
            if (by_heads) {
              b.mask_dims = {b.Q[0], b.K[1], T_q, T_v};
              c.tags.push_back("shapes: a mask of H_kv heads (N, H_kv, T_q, T_v)");
            } else {
              b.mask_dims = {T_q, T_v + delta};
              c.tags.push_back("shapes: a mask with T_v + 1 or + 2 keys");
            }
            Index rows = 1;
            for (std::size_t k = 0; k + 1 < b.mask_dims.size(); ++k) rows *= b.mask_dims[k];
            c.mask = Mask::Constant(rows, b.mask_dims.back(), false);
            for (Index i = 0; i < rows; ++i) (*c.mask)(i, b.mask_dims.back() - 1) = i % 2 == 1;
            return rc::gen::just(c);
          }
          case 3: {  // K and V with one more sequence than Q
            b.K[0] += 1;
            b.V[0] += 1;
            DMatrix K(c.K.rows() + c.K.rows() / (b.K[0] - 1), c.K.cols());
            K << c.K, c.K.topRows(c.K.rows() / (b.K[0] - 1));
            DMatrix V(c.V.rows() + c.V.rows() / (b.V[0] - 1), c.V.cols());
            V << c.V, c.V.topRows(c.V.rows() / (b.V[0] - 1));
            c.K = K;
            c.V = V;
            c.tags.push_back("shapes: K and V have another batch size N");
            return rc::gen::just(c);
          }
          default: {  // V with T_v + delta rows per slice
            Shape4 s = b.V;
            s[2] += delta;
            DMatrix V = stacked_zeros(s);
            for (Index n = 0; n < s[0]; ++n)
              for (Index g = 0; g < s[1]; ++g) {
                const DMatrix old = tensor_slice(c.V, b.V, n, g);
                DMatrix grown(s[2], s[3]);
                for (Index j = 0; j < s[2]; ++j) grown.row(j) = old.row(j % old.rows());
                set_tensor_slice(V, s, n, g, grown);
              }
            b.V = s;
            c.V = V;
            c.tags.push_back("shapes: V has another T_v than K");
            return rc::gen::just(c);
          }
        }
      });
}

}  // namespace attn::prop
