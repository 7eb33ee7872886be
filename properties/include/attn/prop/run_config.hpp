#pragma once
// What a property run is given: the shapes it covers, what its generators may
// assume, and its seed and case counts. Apart from property.hpp so that code
// which only configures a run (the grader's stages) does not parse RapidCheck.

#include <cstdint>
#include <string>
#include <vector>

#include "attn/prop/case.hpp"
#include "attn/prop/subject.hpp"

namespace attn::prop {

/// The shapes a run covers: what the subject takes (attnlab check
/// --max-seq, --head-dims, --tile-multiple). Generated cases and fixed edge
/// cases of attention, attention_tiled, masked_softmax and softmax_rows stay
/// inside it; a case outside it is never sent (an edge case outside is
/// skipped). Refusal cases (a d_k mismatch, a fully forbidden row) keep their
/// valid part inside it.
struct ShapeSpace {
  /// Longest T_q and T_v generated. From 64 on, one case in sixteen is a
  /// "long rows" case: T_q up to 4, T_v from 64 to max_seq, head dims from 8
  /// to 256 (generators.hpp).
  Index max_seq = 256;
  /// The d_k and d_v the subject takes, ascending; empty: any (1 to 16 in the
  /// small cases, 8 to 256 in the long ones).
  std::vector<Index> head_dims;
  /// T_q and T_v are multiples of it (a kernel that takes whole tiles only).
  Index tile_multiple = 1;

  /// Whether T_q x T_v logits with head dims d_k, d_v are inside (d_k, d_v
  /// of 0 are not checked: softmax operations have none).
  bool admits(Index T_q, Index T_v, Index d_k, Index d_v) const;
  /// Whether the case's shapes are inside (always true for the operations
  /// it does not constrain).
  bool admits(const Case& c) const;
  /// "T_q, T_v up to 2048 (multiples of 64); d_k, d_v in {64, 128}".
  std::string describe() const;
  /// What the generators send for `op` within this space: describe(), except
  /// for attention_backward, whose cases are shorter (generators.hpp:
  /// "T_q, T_v up to 63, and long rows: T_v 65 to 300, T_q 1 to 4 or 65 to
  /// 300; d_k up to 16, d_v up to 8 (1 to 4 in long rows)").
  std::string describe(Operation op) const;
};

/// What a generator may assume about the subject it feeds.
struct GenConfig {
  Operation op = Operation::attention;
  Precision precision;  ///< inputs are rounded to this type
  ShapeSpace shapes;    ///< the shapes to stay inside
};

/// Parameters of one property run.
struct RunConfig {
  std::uint64_t seed = 20261129;
  int cases = 100;
  int max_size = 100;
  bool shrink = true;
  ShapeSpace shapes;  ///< the shapes the generated and edge cases cover
};

}  // namespace attn::prop
