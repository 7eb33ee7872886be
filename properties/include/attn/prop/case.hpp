#pragma once
// A Case: one input for a Subject (docs/ARCHITECTURE.md, "Data flow").

#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "attn/matrix.hpp"
#include "attn/prop/operation.hpp"

namespace attn::prop {

/// Inputs always travel as double. A generator for a float subject produces
/// only float-representable values, so the conversion to the subject's
/// scalar is exact.
using DMatrix = Matrix<double>;

/// The shape of a 4-D tensor: (N, H, T, d).
using Shape4 = std::array<Index, 4>;

/// One head's projections (section 32.2.5): W_Q, W_K are d_model x d_k, W_V is d_model x d_v.
struct HeadProjections {
  Matrix<double> W_Q;
  Matrix<double> W_K;
  Matrix<double> W_V;
};

struct Case {
  Operation op = Operation::attention;
  DMatrix Q;  ///< T_q x d_k
  DMatrix K;  ///< T_v x d_k
  DMatrix V;  ///< T_v x d_v
  DMatrix S;  ///< T_q x T_v logits, for the softmax operations
  DMatrix dO;  ///< T_q x d_v, the gradient of the loss with respect to O (attention_backward)
  std::optional<Mask> mask;  ///< T_q x T_v, true = forbidden
  Index tile_q = 0;  ///< query rows per tile (attention_tiled; attention_backward: tiled when > 0)
  Index tile_k = 0;  ///< key rows per tile (attention_tiled; attention_backward: tiled when > 0)
  /// multi_head_attention: the input X (T x d_model), each head's projections
  /// (all with the same d_k and d_v) and the output projection W_O
  /// (h d_v x d_out); the mask is T x T.
  DMatrix X;
  std::vector<HeadProjections> heads;
  DMatrix W_O;
  /// causal_mask and padding_mask: what to build.
  struct MaskShape {
    Index T_q = 0;
    Index T_v = 0;
    bool bottom_right = false;  ///< causal_mask: the last query sees every key
    Index key_length = 0;       ///< padding_mask: keys 0 .. key_length - 1 are real
  } mask_shape;
  /// batched_attention: the 4-D shapes of Q, K, V. Case::Q, K and V hold the
  /// tensors stacked: slice (n, h) of a tensor of shape (N, H, T, d) is rows
  /// [(n H + h) T, (n H + h + 1) T) of an (N H T) x d matrix (its C order).
  /// Case::mask holds the mask stacked likewise over its leading dimensions.
  /// Helpers: attn/prop/batched.hpp.
  struct Batched {
    Shape4 Q{}, K{}, V{};
    /// The mask's shape as sent: 2 entries (T_q | 1, T_v | 1) or 4
    /// (N | 1, H | 1, T_q | 1, T_v | 1), broadcast as NumPy does; empty: no mask.
    std::vector<Index> mask_dims;
    std::optional<double> scale;  ///< the logits' factor; nullopt: 1/sqrt(d_k)
    bool causal = false;          ///< combine the causal mask (a key forbidden by either)
    bool bottom_right = false;    ///< causal alignment: bottom-right, else top-left
  } batched;
  /// Knobs of a metamorphic property, not inputs of the subject: the row
  /// shifts c_i, the vector added to every key, a permutation's sort keys.
  std::vector<double> params;
  /// Regimes this case was drawn from ("T_q!=T_v", "large logits", "causal mask"...),
  /// counted by the runner so a reader sees which edges were reached.
  std::vector<std::string> tags;
};

/// A case's sizes as the subject sees them (for hints and listings), read
/// from its operation's inputs (OperationSpec::inputs): T_q and T_v of the
/// built mask (input::mask_shape), of X (input::projections: self-attention,
/// T_q = T_v = X's rows, d_k and d_v of the first head's W_Q and W_V, none
/// without a head), of the stacked Q (N, H, T_q, d_k) and K, V (N, H_kv,
/// T_v, d_k | d_v) (input::batched), of Q, K, V (input::qkv), else of S
/// (input::logits: no d_k, d_v). nullopt: the operation has no such size.
struct CaseSizes {
  Index T_q = 0;
  Index T_v = 0;
  std::optional<Index> d_k, d_v;
  std::optional<Index> heads;  ///< the query heads (input::projections, input::batched)
};
CaseSizes case_sizes(const Case& c);

/// Prints the case's matrices (used for counterexamples and by RapidCheck).
void showValue(const Case& c, std::ostream& os);

/// Prints the inputs the subject receives (Q, K, V; S; or X, the heads' W_Q,
/// W_K, W_V and W_O) and the mask, one matrix after another (not the
/// params: a property's knobs, which its failure's summary describes),
/// flagging `marked_row` (if >= 0) in the query-side matrix and the mask.
void print_inputs(std::ostream& os, const Case& c, Index marked_row = -1);

/// Prints a matrix with one row a line, values with up to 6 significant
/// digits unless they need more to be told apart; `marked_row` (if >= 0) is
/// flagged with "<-".
void print_matrix(std::ostream& os, const std::string& name, const DMatrix& M,
                  Index marked_row = -1);
void print_mask(std::ostream& os, const std::string& name, const Mask& M, Index marked_row = -1);

}  // namespace attn::prop
