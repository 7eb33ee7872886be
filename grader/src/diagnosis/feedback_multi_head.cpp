// Multi-head misconceptions rebuilt on the counterexample (feedback_multi_head.hpp).
#include "diagnosis/feedback_multi_head.hpp"
#include "diagnosis/feedback_parts.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

namespace attn::grader {

namespace {

using attn::Index;
using attn::prop::Case;
using attn::prop::DMatrix;

/// How each head computes: the scale of its logits and whether it sees the mask.
struct HeadVariant {
  std::function<double(Index d_model, Index d_k)> scale;
  bool masked = true;
};

/// One head's outputs in double, O_i = softmax(X W_Q (X W_K)^T * scale, mask) X W_V.
/// A row with no allowed key is NaN.
DMatrix head_output(const Case& c, std::size_t i, const HeadVariant& v) {
  const auto& h = c.heads[i];
  const DMatrix S = (c.X * h.W_Q) * (c.X * h.W_K).transpose() * v.scale(c.X.cols(), h.W_Q.cols());
  const DMatrix A = softmax_rows(S, [&](Index r, Index j) { return !(v.masked && c.mask && (*c.mask)(r, j)); });
  return A * (c.X * h.W_V);
}

/// [O_order[0], ..., O_order[h-1]] W_O with the heads computed as `v` says.
DMatrix combined(const Case& c, const std::vector<std::size_t>& order, const HeadVariant& v) {
  const Index d_v = c.heads.front().W_V.cols();
  DMatrix C(c.X.rows(), Index(order.size()) * d_v);
  for (std::size_t k = 0; k < order.size(); ++k)
    C.middleCols(Index(k) * d_v, d_v) = head_output(c, order[k], v);
  return C * c.W_O;
}

const HeadVariant kRight{[](Index, Index d_k) { return 1.0 / std::sqrt(double(d_k)); }, true};

}  // namespace

std::optional<Hint> multi_head_hint(const std::string& property_id, const Case& c,
                                    const attn::prop::Outcome& o) {
  if (c.heads.empty() || c.W_O.rows() != Index(c.heads.size()) * c.heads.front().W_V.cols())
    return std::nullopt;
  const std::size_t h = c.heads.size();
  std::vector<std::size_t> in_order(h);
  std::iota(in_order.begin(), in_order.end(), std::size_t{0});
  const bool has_mask = c.mask && c.mask->any();
  const Index d_model = c.X.cols();
  const Index d_k = c.heads.front().W_Q.cols(), d_v = c.heads.front().W_V.cols();
  const std::string cites = "section 32.2.5: O = [O_1, ..., O_h] W_O";
  const HeadVariant no_mask{kRight.scale, false};
  auto with_inverted_mask = [&]() {
    Case flipped = c;
    if (flipped.mask) *flipped.mask = flipped.mask->unaryExpr([](bool b) { return !b; });
    return combined(flipped, in_order, kRight);
  };

  // exp overflow: a non-finite answer where some head's logits leave exp's range.
  if (!o.O.allFinite()) {
    double largest = 0;
    for (std::size_t i = 0; i < h; ++i) {
      const auto& p = c.heads[i];
      const DMatrix S = (c.X * p.W_Q) * (c.X * p.W_K).transpose() / std::sqrt(double(d_k));
      largest = std::max(largest, S.cwiseAbs().maxCoeff());
    }
    if (largest > 88) {
      return shape_hint("no_max_shift", "exp() overflows: the row maximum is not subtracted",
                        "A head's logits reach " + std::to_string(int(largest)) +
                            " here, beyond exp's range (about 709 in float64), and the answer "
                            "is not finite. Subtract each row's maximum over the allowed keys "
                            "before exp: the softmax is unchanged (shift invariance).",
                        "shift invariance, section 32.2.4");
    }
  }

  // Every misconception whose answer on this case equals the submission's,
  // and fits it far better than the definition does (on a shrunk case whose
  // values are tiny, every model is within rounding of the answer).
  auto distance = [&](const DMatrix& M) {
    if (M.rows() != o.O.rows() || M.cols() != o.O.cols() || M.size() == 0)
      return std::numeric_limits<double>::infinity();
    double d = 0;
    for (Index i = 0; i < M.rows(); ++i)
      for (Index j = 0; j < M.cols(); ++j) {
        if (std::isnan(M(i, j))) return std::numeric_limits<double>::infinity();
        if (!std::isfinite(o.O(i, j))) return std::numeric_limits<double>::infinity();
        d = std::max(d, std::abs(o.O(i, j) - M(i, j)) / (1 + std::abs(M(i, j))));
      }
    return d;
  };
  const double d_right = distance(combined(c, in_order, kRight));
  auto fits = [&](const DMatrix& M) {
    const double d = distance(M);
    return d <= 1e-9 && d * 100 <= d_right;
  };
  std::vector<Hint> found;
  if (property_id == "fully_forbidden_refused") {
    // It answered a case with a row that has no allowed key.
    if (has_mask && fits(combined(c, in_order, no_mask)))
      found.push_back(shape_hint(
          "mask_not_forwarded", "the mask does not reach the heads",
          "The answer is multi-head attention with no mask at all: the layer takes the mask "
          "but the heads never see it. Pass it to every head's attention, which then refuses "
          "a query row with every key forbidden.",
          "section 32.2.5; Lemma 2, section 32.2.4"));
    if (has_mask && fits(with_inverted_mask()))
      found.push_back(shape_hint(
          "inverted_mask", "the mask's polarity is inverted",
          "The answer is multi-head attention with the mask read the other way round. In the "
          "text (and in attnlab) mask = true means forbidden; PyTorch's boolean attn_mask "
          "means the opposite.",
          "section 32.2.4, Lemma 2"));
  } else {
    // Another order of the heads (h <= 4: at most 24 orders).
    for (std::vector<std::size_t> order = in_order; std::next_permutation(order.begin(), order.end());) {
      if (!fits(combined(c, order, kRight))) continue;
      std::string shown;
      for (std::size_t k = 0; k < h; ++k)
        shown += (k ? ", " : "") + std::string("O_") + std::to_string(order[k] + 1);
      found.push_back(shape_hint(
          "heads_out_of_order", "the heads are concatenated in the wrong order",
          "On this case the answer equals [" + shown + "] W_O: head i's output must fill "
          "columns i d_v to (i+1) d_v - 1 of the concatenation, in head order, so that it "
          "meets its own row block of W_O.",
          cites));
      break;
    }
    // Every head times the first d_v rows of W_O, summed.
    DMatrix first_block = DMatrix::Zero(c.X.rows(), c.W_O.cols());
    for (std::size_t i = 0; i < h; ++i) first_block += head_output(c, i, kRight) * c.W_O.topRows(d_v);
    if (h > 1 && fits(first_block))
      found.push_back(shape_hint(
          "one_wo_block_per_head", "every head meets the same block of W_O",
          "On this case the answer equals the sum of O_i W_O[0:d_v] over the heads: head i "
          "must meet rows i d_v to (i+1) d_v - 1 of W_O. Concatenate the heads and multiply "
          "the T x h d_v result by the whole W_O.",
          cites));
    // A wrong scale: sqrt(d_model), sqrt(d_v), none.
    struct Scale {
      Index width;
      const char* name;
    };
    for (const Scale& sc : {Scale{d_model, "d_model"}, Scale{d_v, "d_v"}, Scale{1, "1"}}) {
      if (sc.width == d_k) continue;  // the right scale on this case
      const double w = double(sc.width);
      if (!fits(combined(c, in_order, {[w](Index, Index) { return 1.0 / std::sqrt(w); }, true})))
        continue;
      const std::string what = sc.width == 1 && std::string(sc.name) == "1"
                                   ? "the heads' logits are not scaled"
                                   : std::string("the heads' logits are scaled by 1/sqrt(") + sc.name + ")";
      found.push_back(shape_hint(
          std::string(sc.name) == "1" ? "no_scale" : std::string("scale_by_") + sc.name, what,
          "Each head takes dot products of d_k-dimensional queries and keys (here d_k = " +
              std::to_string(d_k) + ", d_model = " + std::to_string(d_model) + ", d_v = " +
              std::to_string(d_v) + "), so its logits are divided by sqrt(d_k), the head's own "
              "width.",
          "Lemma 1, section 32.2.3, applied per head (section 32.2.5)"));
    }
    if (has_mask && fits(combined(c, in_order, no_mask)))
      found.push_back(shape_hint(
          "mask_not_forwarded", "the mask does not reach the heads",
          "On this case the answer equals multi-head attention with no mask at all: pass the "
          "mask to every head's attention (the same mask for each head), applied before its "
          "softmax.",
          "section 32.2.5; Lemma 2, section 32.2.4"));
  }
  if (auto h = one_or_all(found, "multi_head_ambiguous",
                          "the multi-head answer fits more than one known mistake on this case",
                          "Check each on a case of your own where they differ."))
    return h;
  if (property_id == "oracle_agreement" || property_id == "heads_in_order") {
    return Hint{property_id, "the multi-head output differs from the definition",
                "Check one head at a time on the counterexample: O_i = attention(X W_Q^i, "
                "X W_K^i, X W_V^i, mask) with the scale 1/sqrt(d_k); then concatenate the heads "
                "in order and multiply by W_O. With W_O = I (heads_in_order) the answer is the "
                "concatenation itself.",
                cites, false};
  }
  return std::nullopt;
}

}  // namespace attn::grader
