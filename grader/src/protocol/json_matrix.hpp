#pragma once
// Matrices and masks on the protocol (grader/PROTOCOL.md, "Matrices").
//
// A matrix is a JSON array of rows, each row an array of numbers (see
// json_double.hpp); a mask is an array of rows of booleans, true = forbidden.
// A matrix with zero rows is the empty array; its number of columns then
// comes from the context (the caller's `cols_if_empty`).

#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

namespace attn::grader {

/// Same types as attn::Matrix<double> and attn::Mask (lib/include/attn/matrix.hpp),
/// restated here so the codec does not depend on the library.
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMask = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// [[M(0,0), M(0,1), ...], ...]: rows x cols entries, one array per row.
nlohmann::json encode_matrix(const RowMatrix& M);

/// The matrix a JSON array of rows stands for.
/// `name` is used in messages ("O", "A"). `cols_if_empty` is the column count
/// given to a matrix with zero rows.
/// Throws ProtocolError if v is not an array of arrays, if the rows differ in
/// length (the message names the first row that differs), or if an entry is
/// not a number or one of the strings "NaN", "Infinity", "-Infinity".
RowMatrix decode_matrix(const nlohmann::json& v, const std::string& name,
                        Eigen::Index cols_if_empty = 0);

/// [[true, false, ...], ...] with true = forbidden.
nlohmann::json encode_mask(const RowMask& M);

/// The mask a JSON array of rows of booleans stands for.
/// Throws ProtocolError as decode_matrix does, and for an entry that is not
/// a JSON boolean (0 and 1 are refused, so a polarity slip cannot pass unseen).
RowMask decode_mask(const nlohmann::json& v, const std::string& name,
                    Eigen::Index cols_if_empty = 0);

/// A tensor of rank >= 2 held stacked (attn::prop::Case::Batched): the
/// entry (i_0, ..., i_{r-1}) is row (i_0 * shape[1] + i_1) * ... + i_{r-2}
/// and column i_{r-1} of a (shape[0] ... shape[r-2]) x shape[r-1] matrix.
struct StackedTensor {
  std::vector<Eigen::Index> shape;
  RowMatrix stacked;
};

/// Nested arrays of depth shape.size() (4 for (N, H, T, d)), the innermost
/// arrays of numbers: [[[[Q(0,0,0,0), ...], ...], ...], ...]. `stacked` must
/// have the rows and columns `shape` gives.
nlohmann::json encode_tensor(const RowMatrix& stacked, const std::vector<Eigen::Index>& shape);

/// The same nesting of booleans (true = forbidden).
nlohmann::json encode_mask_tensor(const RowMask& stacked, const std::vector<Eigen::Index>& shape);

/// The tensor nested arrays of depth `rank` stand for, with its shape read
/// from the nesting (an empty array makes the dimensions below it 0).
/// Throws ProtocolError if v is not nested that deep, if arrays at one depth
/// differ in length (naming the first index that differs, "O[1][0]"), or if
/// an entry is not a number or one of "NaN", "Infinity", "-Infinity".
StackedTensor decode_tensor(const nlohmann::json& v, const std::string& name, std::size_t rank);

}  // namespace attn::grader
