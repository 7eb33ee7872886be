// Multi-head misconceptions rebuilt on the counterexample (feedback_multi_head.hpp).
#include "feedback_multi_head.hpp"

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

Hint shape_hint(std::string key, std::string misconception, std::string advice, std::string cites) {
  return Hint{std::move(key), std::move(misconception), std::move(advice), std::move(cites), true};
}

/// How each head computes: the scale of its logits and whether it sees the mask.
struct HeadVariant {
  std::function<double(Index d_model, Index d_k)> scale;
  bool masked = true;
};

/// One head's outputs in double, O_i = softmax(X W_Q (X W_K)^T * scale, mask) X W_V.
/// A row with no allowed key is NaN.
DMatrix head_output(const Case& c, std::size_t i, const HeadVariant& v) {
  const auto& h = c.heads[i];
  const DMatrix Q = c.X * h.W_Q, K = c.X * h.W_K, V = c.X * h.W_V;
  const DMatrix S = (Q * K.transpose()) * v.scale(c.X.cols(), h.W_Q.cols());
  DMatrix A = DMatrix::Zero(S.rows(), S.cols());
  for (Index r = 0; r < S.rows(); ++r) {
    auto allowed = [&](Index j) { return !(v.masked && c.mask && (*c.mask)(r, j)); };
    double m = -std::numeric_limits<double>::infinity();
    for (Index j = 0; j < S.cols(); ++j)
      if (allowed(j)) m = std::max(m, S(r, j));
    double sum = 0;
    for (Index j = 0; j < S.cols(); ++j)
      if (allowed(j)) sum += (A(r, j) = std::exp(S(r, j) - m));
    A.row(r) /= sum;
  }
  return A * V;
}

/// [O_order[0], ..., O_order[h-1]] W_O with the heads computed as `v` says.
DMatrix combined(const Case& c, const std::vector<std::size_t>& order, const HeadVariant& v) {
  const Index d_v = c.heads.front().W_V.cols();
  DMatrix C(c.X.rows(), Index(order.size()) * d_v);
  for (std::size_t k = 0; k < order.size(); ++k)
    C.middleCols(Index(k) * d_v, d_v) = head_output(c, order[k], v);
  return C * c.W_O;
}

/// The answer equals the model within a tolerance far below any misconception's effect.
bool matches(const DMatrix& O, const DMatrix& M) {
  if (O.rows() != M.rows() || O.cols() != M.cols() || O.size() == 0) return false;
  for (Index i = 0; i < M.rows(); ++i)
    for (Index j = 0; j < M.cols(); ++j)
      if (!std::isfinite(O(i, j)) || !(std::abs(O(i, j) - M(i, j)) <= 1e-9 * (1 + std::abs(M(i, j)))))
        return false;
  return true;
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

  if (property_id == "fully_forbidden_refused") {
    // It answered a case with a row that has no allowed key.
    if (has_mask && matches(o.O, combined(c, in_order, {kRight.scale, false}))) {
      return shape_hint("mask_not_forwarded", "the mask does not reach the heads",
                        "The answer is multi-head attention with no mask at all: the layer takes "
                        "the mask but the heads never see it. Pass it to every head's attention, "
                        "which then refuses a query row with every key forbidden.",
                        "section 32.2.5; Lemma 2, section 32.2.4");
    }
    return std::nullopt;  // the property's own hint
  }

  // Another order of the heads (h <= 4: at most 24 orders), and every head
  // times the first d_v rows of W_O, summed. On a shrunk case both can fit
  // (a head whose output is 0 meets any block): then the hint names both.
  std::string permuted;
  for (std::vector<std::size_t> order = in_order;
       permuted.empty() && std::next_permutation(order.begin(), order.end());) {
    if (!matches(o.O, combined(c, order, kRight))) continue;
    for (std::size_t k = 0; k < h; ++k)
      permuted += (k ? ", " : "") + std::string("O_") + std::to_string(order[k] + 1);
  }
  const Index d_v = c.heads.front().W_V.cols();
  DMatrix first_block = DMatrix::Zero(c.X.rows(), c.W_O.cols());
  for (std::size_t i = 0; i < h; ++i) first_block += head_output(c, i, kRight) * c.W_O.topRows(d_v);
  const bool one_block = h > 1 && matches(o.O, first_block);
  const std::string cites = "section 32.2.5: O = [O_1, ..., O_h] W_O";
  if (!permuted.empty() && one_block) {
    return shape_hint("heads_meet_wrong_W_O_blocks", "the heads do not meet their own blocks of W_O",
                      "On this case the answer equals both [" + permuted + "] W_O (the heads "
                      "concatenated in the wrong order) and the sum of O_i W_O[0:d_v] (the same "
                      "block of W_O for every head). Head i's output must fill columns i d_v to "
                      "(i+1) d_v - 1 of the concatenation, in head order, and the concatenation "
                      "is multiplied by the whole W_O.",
                      cites);
  }
  if (!permuted.empty()) {
    return shape_hint("heads_out_of_order", "the heads are concatenated in the wrong order",
                      "The answer is [" + permuted + "] W_O: head i's output must fill columns "
                      "i d_v to (i+1) d_v - 1 of the concatenation, in head order, so that it "
                      "meets its own row block of W_O.",
                      cites);
  }
  if (one_block) {
    return shape_hint("one_wo_block_per_head", "every head meets the same block of W_O",
                      "The answer is the sum of O_i W_O[0:d_v] over the heads: head i must "
                      "meet rows i d_v to (i+1) d_v - 1 of W_O. Concatenate the heads and "
                      "multiply the T x h d_v result by the whole W_O.",
                      cites);
  }
  const Index d_k = c.heads.front().W_Q.cols();
  if (c.X.cols() != d_k &&
      matches(o.O, combined(c, in_order, {[](Index d_model, Index) { return 1.0 / std::sqrt(double(d_model)); }, true}))) {
    return shape_hint("scale_by_d_model", "the heads' logits are scaled by 1/sqrt(d_model)",
                      "Each head takes dot products of d_k-dimensional queries and keys "
                      "(d_k = " + std::to_string(d_k) + " here, d_model = " +
                          std::to_string(c.X.cols()) +
                          "), so its scale is 1/sqrt(d_k), the head's own width.",
                      "Lemma 1, section 32.2.3, applied per head (section 32.2.5)");
  }
  if (d_k != 1 && matches(o.O, combined(c, in_order, {[](Index, Index) { return 1.0; }, true}))) {
    return shape_hint("no_scale", "the heads' logits are not scaled",
                      "Each head's logits are its Q K^T divided by sqrt(d_k).",
                      "Lemma 1, section 32.2.3");
  }
  if (has_mask && matches(o.O, combined(c, in_order, {kRight.scale, false}))) {
    return shape_hint("mask_not_forwarded", "the mask does not reach the heads",
                      "The answer is multi-head attention with no mask at all: pass the mask to "
                      "every head's attention (the same mask for each head), applied before its "
                      "softmax.",
                      "section 32.2.5; Lemma 2, section 32.2.4");
  }
  if (property_id == "oracle_agreement" || property_id == "heads_in_order") {
    return Hint{property_id, "the multi-head output differs from the definition",
                "Check one head at a time on the counterexample: O_i = attention(X W_Q^i, "
                "X W_K^i, X W_V^i, mask) with the scale 1/sqrt(d_k); then concatenate the heads "
                "in order and multiply by W_O. With W_O = I (heads_in_order) the answer is the "
                "concatenation itself.",
                "section 32.2.5: O = [O_1, ..., O_h] W_O", false};
  }
  return std::nullopt;
}

}  // namespace attn::grader
