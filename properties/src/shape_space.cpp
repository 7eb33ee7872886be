// The shapes a run covers (property.hpp, ShapeSpace).
#include <algorithm>
#include <sstream>
#include <string>

#include "attn/prop/generators.hpp"
#include "attn/prop/property.hpp"
#include "attn/prop/operation_table.hpp"

namespace attn::prop {

namespace {

// Whether a space admits a case, by the case's shapes.
bool admits_qkv(const ShapeSpace& space, const Case& c) {
  return space.admits(c.Q.rows(), c.K.rows(), c.Q.cols(), c.V.cols());
}
bool admits_logits(const ShapeSpace& space, const Case& c) { return space.admits(c.S.rows(), c.S.cols(), 0, 0); }
bool admits_any(const ShapeSpace&, const Case&) { return true; }

std::string describe_common(const ShapeSpace& space) { return space.describe(); }

// The backward pass's shapes (backward_shape_gen, generators.cpp): its own long
// rows and head dimensions.
std::string describe_backward(const ShapeSpace& space) {
  const Index tile_multiple = space.tile_multiple, max_seq = space.max_seq;
  const auto& head_dims = space.head_dims;
  const Index tm = std::max<Index>(tile_multiple, 1);
  auto fit = [&](Index k) { return std::min((k + tm - 1) / tm, std::max<Index>(max_seq / tm, 1)) * tm; };
  std::ostringstream os;
  // The small cases: up to 32 tiles of tm (shape_gen), below kLongRowsFrom.
  const Index small = std::min<Index>(32, std::max<Index>(std::min(max_seq, kLongRowsFrom - 1) / tm, 1)) * tm;
  os << "T_q, T_v up to " << small;
  const Index most = fit(std::min(max_seq, kBackwardLongTo));
  if (max_seq >= kBackwardLongFrom)
    os << ", and long rows: T_v " << fit(kBackwardLongFrom) << " to " << most << ", T_q "
       << (tm == 1 ? "1 to 4" : std::to_string(tm)) << " or " << fit(kBackwardLongFrom) << " to " << most;
  if (tm > 1) os << " (multiples of " << tm << ")";
  os << "; d_k, d_v ";
  if (head_dims.empty()) {
    os << "1 to 16 and 1 to 8" << (max_seq >= kBackwardLongFrom ? " (1 to 4 in long rows)" : "");
  } else {
    os << "in {";
    for (std::size_t k = 0; k < head_dims.size(); ++k) os << (k ? ", " : "") << head_dims[k];
    os << "}";
  }
  return os.str();
}

/// How an operation's shapes are held to a space and described.
struct ShapeRow {
  Operation op;
  /// ShapeSpace::admits(c): admits_any for the operations whose cases the
  /// space does not bound (their generators hold them to it).
  bool (*admits)(const ShapeSpace& space, const Case& c);
  /// ShapeSpace::describe(op).
  std::string (*describe)(const ShapeSpace& space);
};

constexpr ShapeRow kShapeRows[] = {
    {Operation::softmax_rows, admits_logits, describe_common},
    {Operation::masked_softmax, admits_logits, describe_common},
    {Operation::attention, admits_qkv, describe_common},
    {Operation::attention_tiled, admits_qkv, describe_common},
    {Operation::multi_head_attention, admits_any, describe_common},
    {Operation::causal_mask, admits_any, describe_common},
    {Operation::padding_mask, admits_any, describe_common},
    {Operation::batched_attention, admits_any, describe_common},
    {Operation::attention_backward, admits_any, describe_backward},
};
static_assert(detail::one_row_per_operation(kShapeRows),
              "kShapeRows: one row per OperationSpec, in the enumerator's order");

}  // namespace

bool ShapeSpace::admits(Index T_q, Index T_v, Index d_k, Index d_v) const {
  const Index tm = std::max<Index>(tile_multiple, 1);
  if (T_q > max_seq || T_v > max_seq || T_q % tm != 0 || T_v % tm != 0) return false;
  auto dim_ok = [this](Index d) {
    return d == 0 || head_dims.empty() || std::find(head_dims.begin(), head_dims.end(), d) != head_dims.end();
  };
  return dim_ok(d_k) && dim_ok(d_v);
}

bool ShapeSpace::admits(const Case& c) const {
  return detail::row_of(kShapeRows, c.op).admits(*this, c);
}

std::string ShapeSpace::describe() const {
  std::ostringstream os;
  os << "T_q, T_v up to " << max_seq;
  if (tile_multiple > 1) os << " (multiples of " << tile_multiple << ")";
  os << "; d_k, d_v ";
  if (head_dims.empty()) {
    os << "any (1 to 16, and 8 to 256 with long rows)";
  } else {
    os << "in {";
    for (std::size_t k = 0; k < head_dims.size(); ++k) os << (k ? ", " : "") << head_dims[k];
    os << "}";
  }
  return os.str();
}

std::string ShapeSpace::describe(Operation op) const { return detail::row_of(kShapeRows, op).describe(*this); }

}  // namespace attn::prop
