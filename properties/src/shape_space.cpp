// The shapes a run covers (property.hpp, ShapeSpace).
#include <algorithm>
#include <sstream>

#include "attn/prop/property.hpp"

namespace attn::prop {

bool ShapeSpace::admits(Index T_q, Index T_v, Index d_k, Index d_v) const {
  const Index tm = std::max<Index>(tile_multiple, 1);
  if (T_q > max_seq || T_v > max_seq || T_q % tm != 0 || T_v % tm != 0) return false;
  auto dim_ok = [this](Index d) {
    return d == 0 || head_dims.empty() || std::find(head_dims.begin(), head_dims.end(), d) != head_dims.end();
  };
  return dim_ok(d_k) && dim_ok(d_v);
}

bool ShapeSpace::admits(const Case& c) const {
  switch (c.op) {
    case Operation::attention:
    case Operation::attention_tiled:
      return admits(c.Q.rows(), c.K.rows(), c.Q.cols(), c.V.cols());
    case Operation::masked_softmax:
    case Operation::softmax_rows:
      return admits(c.S.rows(), c.S.cols(), 0, 0);
    default:
      return true;
  }
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

}  // namespace attn::prop
