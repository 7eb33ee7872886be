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
