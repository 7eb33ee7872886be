#pragma once
// The (n, h) slices of a batched_attention Case (case.hpp, Operation::batched_attention):
// every property reduces the batched operation to one attention per (n, h)
// and holds each to the per-head oracle and bound (reference/TOLERANCE.md).
//
// Conventions, those of PyTorch's scaled_dot_product_attention (enable_gqa)
// and flash-attention: Q (N, H, T_q, d_k), K (N, H_kv, T_v, d_k),
// V (N, H_kv, T_v, d_v), H_kv divides H, and query head h uses kv head
// h / (H / H_kv), so the H / H_kv consecutive query heads of a group share
// one (Ainslie et al. 2023, GQA, section 2; H_kv = 1 is multi-query
// attention, Shazeer 2019; H_kv = H is plain multi-head attention). The mask
// (true = forbidden, section 32.2.4) is 2-D or 4-D and broadcast as NumPy
// does (each dimension equal or 1, aligned at the right); the causal mask,
// top-left (query i sees keys j <= i) or bottom-right (j <= i + T_v - T_q),
// is combined with it: a key is forbidden if either forbids it.

#include <optional>
#include <string>

#include "attn/prop/case.hpp"

namespace attn::prop {

/// The kv head query head h attends with: h / (H / H_kv). Requires
/// 1 <= H_kv, H_kv divides H and 0 <= h < H.
inline Index kv_head_of(Index h, Index H, Index H_kv) { return h / (H / H_kv); }

/// "(2, 4, 3, 5)".
std::string shape_text(const Shape4& s);

/// Slice (n, h) of a tensor of shape `s` held stacked in `stacked`
/// ((N H T) x d, Case::Batched): a T x d matrix. Requires n < N, h < H.
DMatrix tensor_slice(const DMatrix& stacked, const Shape4& s, Index n, Index h);

/// The empty stacked tensor of shape s, (N H T) x d, zero-filled.
DMatrix stacked_zeros(const Shape4& s);

/// Writes M (T x d) into slice (n, h) of `stacked`.
void set_tensor_slice(DMatrix& stacked, const Shape4& s, Index n, Index h, const DMatrix& M);

/// The answer's shape, (N, H, T_q, d_v), from Q's and V's shapes.
Shape4 batched_output_shape(const Case& c);

/// Why the inputs of a batched_attention case do not fit together, in words
/// ("H_kv = 3 does not divide H = 4"); nullopt when they fit. Checked: N of
/// K and V equals Q's; K and V have the same H_kv and T_v; H_kv >= 1 divides
/// H; d_k of K equals Q's and is >= 1; the mask has 2 or 4 dimensions, each
/// equal to the one it broadcasts against (N, H, T_q, T_v, aligned at the
/// right) or 1; the scale is finite.
std::optional<std::string> batched_shape_problem(const Case& c);

/// Key j is forbidden for query i by the causal mask of a T_q x T_v case:
/// j > i (top-left) or j > i + T_v - T_q (bottom-right). Section 32.2.4.
bool causal_forbids(Index i, Index j, Index T_q, Index T_v, bool bottom_right);

/// The mask entry (true = forbidden) that the case's broadcast mask gives
/// head (n, h), query i, key j (false without a mask). Requires the shapes
/// to fit (batched_shape_problem).
bool mask_forbids(const Case& c, Index n, Index h, Index i, Index j);

/// One head's attention problem: Q[n, h] (T_q x d_k), K[n, g] and V[n, g]
/// with g = kv_head_of(h), and the T_q x T_v mask of that head, the
/// broadcast mask combined with the causal one (nullopt if the case has
/// neither). Requires the shapes to fit.
struct HeadSlice {
  DMatrix Q, K, V;
  std::optional<Mask> mask;
  Index kv_head = 0;
};
HeadSlice batched_head(const Case& c, Index n, Index h);

/// Where stacked row r of a tensor of shape s sits: slice (n, h), row i.
struct StackedRow {
  Index n = 0, h = 0, i = 0;
};
StackedRow stacked_row(const Shape4& s, Index r);

}  // namespace attn::prop
