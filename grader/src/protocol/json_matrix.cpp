// Matrices and masks on the protocol: arrays of rows.
#include "protocol/json_matrix.hpp"

#include <string>

#include "protocol/json_double.hpp"
#include "protocol/protocol_error.hpp"

namespace attn::grader {
namespace {

using Index = Eigen::Index;

/// Checks that v is an array of equally long arrays; returns {rows, cols}.
std::pair<Index, Index> rectangular_shape(const nlohmann::json& v, const std::string& name,
                                          Index cols_if_empty) {
  if (!v.is_array()) {
    throw ProtocolError(name + " is " + std::string(v.type_name()) +
                        ", expected an array of rows");
  }
  const auto rows = static_cast<Index>(v.size());
  if (rows == 0) return {0, cols_if_empty};
  Index cols = -1;
  for (Index i = 0; i < rows; ++i) {
    const auto& row = v[static_cast<std::size_t>(i)];
    if (!row.is_array()) {
      throw ProtocolError(name + " row " + std::to_string(i) + " is " +
                          std::string(row.type_name()) + ", expected an array");
    }
    const auto n = static_cast<Index>(row.size());
    if (cols < 0) {
      cols = n;
    } else if (n != cols) {
      throw ProtocolError(name + " is not rectangular: row 0 has " + std::to_string(cols) +
                          " entries but row " + std::to_string(i) + " has " +
                          std::to_string(n));
    }
  }
  return {rows, cols};
}

std::string entry_name(const std::string& name, Index i, Index j) {
  return name + "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
}

}  // namespace

nlohmann::json encode_matrix(const RowMatrix& M) {
  auto out = nlohmann::json::array();
  for (Index i = 0; i < M.rows(); ++i) {
    auto row = nlohmann::json::array();
    for (Index j = 0; j < M.cols(); ++j) row.push_back(encode_double(M(i, j)));
    out.push_back(std::move(row));
  }
  return out;
}

RowMatrix decode_matrix(const nlohmann::json& v, const std::string& name, Index cols_if_empty) {
  const auto [rows, cols] = rectangular_shape(v, name, cols_if_empty);
  RowMatrix M(rows, cols);
  for (Index i = 0; i < rows; ++i) {
    const auto& row = v[static_cast<std::size_t>(i)];
    for (Index j = 0; j < cols; ++j) {
      const auto& x = row[static_cast<std::size_t>(j)];
      // Fast path for the common case; decode_double names the entry otherwise.
      M(i, j) = x.is_number_float() ? x.get<double>() : decode_double(x, entry_name(name, i, j));
    }
  }
  return M;
}

nlohmann::json encode_mask(const RowMask& M) {
  auto out = nlohmann::json::array();
  for (Index i = 0; i < M.rows(); ++i) {
    auto row = nlohmann::json::array();
    for (Index j = 0; j < M.cols(); ++j) row.push_back(static_cast<bool>(M(i, j)));
    out.push_back(std::move(row));
  }
  return out;
}

RowMask decode_mask(const nlohmann::json& v, const std::string& name, Index cols_if_empty) {
  const auto [rows, cols] = rectangular_shape(v, name, cols_if_empty);
  RowMask M(rows, cols);
  for (Index i = 0; i < rows; ++i) {
    const auto& row = v[static_cast<std::size_t>(i)];
    for (Index j = 0; j < cols; ++j) {
      const auto& x = row[static_cast<std::size_t>(j)];
      if (!x.is_boolean()) {
        throw ProtocolError(entry_name(name, i, j) + " is " + std::string(x.type_name()) +
                            ", expected true (forbidden) or false (allowed)");
      }
      M(i, j) = x.get<bool>();
    }
  }
  return M;
}

}  // namespace attn::grader

namespace attn::grader {
namespace {

/// Nested arrays of `shape` from stacked entries: `leaf(row, col)` gives one;
/// `row_base` is the C-order number of the indices above `depth`.
template <class Leaf>
nlohmann::json nest(const std::vector<Index>& shape, std::size_t depth, Index row_base,
                    const Leaf& leaf) {
  auto out = nlohmann::json::array();
  if (depth + 1 == shape.size()) {
    for (Index j = 0; j < shape[depth]; ++j) out.push_back(leaf(row_base, j));
    return out;
  }
  // The child k of prefix number p has prefix number p * shape[depth] + k;
  // at the last depth the prefix number is the stacked row.
  for (Index k = 0; k < shape[depth]; ++k)
    out.push_back(nest(shape, depth + 1, row_base * shape[depth] + k, leaf));
  return out;
}

void flatten(const nlohmann::json& v, const std::vector<Index>& shape, std::size_t depth,
             const std::string& where, std::vector<double>& out) {
  if (!v.is_array())
    throw ProtocolError(where + " is " + std::string(v.type_name()) + ", expected an array");
  if (static_cast<Index>(v.size()) != shape[depth])
    throw ProtocolError(where + " has " + std::to_string(v.size()) + " entries, expected " +
                        std::to_string(shape[depth]) + " (the tensor is not rectangular)");
  for (std::size_t k = 0; k < v.size(); ++k) {
    const std::string at = where + "[" + std::to_string(k) + "]";
    if (depth + 1 == shape.size()) {
      const auto& x = v[k];
      out.push_back(x.is_number_float() ? x.get<double>() : decode_double(x, at));
    } else {
      flatten(v[k], shape, depth + 1, at, out);
    }
  }
}

}  // namespace

nlohmann::json encode_tensor(const RowMatrix& stacked, const std::vector<Index>& shape) {
  return nest(shape, 0, 0, [&](Index row, Index col) { return encode_double(stacked(row, col)); });
}

nlohmann::json encode_mask_tensor(const RowMask& stacked, const std::vector<Index>& shape) {
  return nest(shape, 0, 0, [&](Index row, Index col) { return static_cast<bool>(stacked(row, col)); });
}

StackedTensor decode_tensor(const nlohmann::json& v, const std::string& name, std::size_t rank) {
  StackedTensor t;
  t.shape.assign(rank, 0);
  const nlohmann::json* level = &v;
  for (std::size_t d = 0; d < rank; ++d) {
    if (!level->is_array())
      throw ProtocolError(name + " is not nested " + std::to_string(rank) +
                          " arrays deep (depth " + std::to_string(d) + " is " +
                          std::string(level->type_name()) + ")");
    t.shape[d] = static_cast<Index>(level->size());
    if (level->empty()) break;
    level = &(*level)[0];
  }
  std::vector<double> flat;
  Index rows = 1;
  for (std::size_t d = 0; d + 1 < rank; ++d) rows *= t.shape[d];
  const Index cols = t.shape[rank - 1];
  if (rows * cols > 0) flatten(v, t.shape, 0, name, flat);
  t.stacked = RowMatrix(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) t.stacked(i, j) = flat[static_cast<std::size_t>(i * cols + j)];
  return t;
}

}  // namespace attn::grader
