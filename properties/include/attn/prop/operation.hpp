#pragma once
// The operations a property asks a subject to perform, and one spec each:
// what a Case carries for it and what its answer holds (docs/ARCHITECTURE.md,
// "How to add", an operation).

#include <cstddef>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>

namespace attn::prop {

/// The operation a property asks a subject to perform.
enum class Operation {
  softmax_rows,    ///< A = softmax(S) row-wise (F1). Uses S.
  masked_softmax,  ///< A = masked_softmax(S, mask) (F2, Lemma 2). Uses S, mask.
  attention,       ///< {O, A} = attention(Q, K, V, mask) (F3). Uses Q, K, V, mask.
  attention_tiled, ///< {O, logsumexp} = attention_tiled(Q, K, V, mask, tiles). Uses tile_q, tile_k.
  /// O = [O_1, ..., O_h] W_O with O_i = attention(X W_Q^i, X W_K^i, X W_V^i, mask).O
  /// (section 32.2.5, self-attention). Uses X, heads, W_O, mask.
  multi_head_attention,
  /// The causal mask T_q x T_v (true = forbidden), top-left or bottom-right
  /// aligned (section 32.2.4). Uses mask_shape.
  causal_mask,
  /// The padding mask T_q x T_v: keys j >= key_length forbidden (section 32.2.4).
  /// Uses mask_shape.
  padding_mask,
  /// Batched multi-head attention with grouped-query sharing of the keys and
  /// values (Ainslie et al. 2023, GQA; Shazeer 2019, MQA): Q is
  /// (N, H, T_q, d_k), K (N, H_kv, T_v, d_k), V (N, H_kv, T_v, d_v), H_kv
  /// divides H, and query head h attends with kv head h / (H / H_kv); every
  /// (n, h) is one attention(Q[n, h], K[n, g], V[n, g], mask[n, h]) with the
  /// logits scaled by `scale` (default 1/sqrt(d_k)). Answer O (N, H, T_q, d_v).
  /// Uses Q, K, V (stacked, see Case::Batched), mask, batched.
  batched_attention,
  /// The backward pass of attention (lib/attention_backward.hpp): the
  /// gradients {dQ, dK, dV} of L = sum_il dO_il O_il with O = attention(Q, K,
  /// V, mask) and the text's 1/sqrt(d_k) (Dao et al. 2022, Appendix B.2).
  /// Uses Q, K, V, dO, mask; the library answers with its tiled backward
  /// (FlashAttention-2's order, after attention_tiled) when tile_q and
  /// tile_k are both > 0, with its naive one otherwise.
  attention_backward,
};

/// The inputs a Case carries for an operation (flags of OperationSpec::inputs).
namespace input {
inline constexpr unsigned logits = 1u << 0;      ///< S, T_q x T_v
inline constexpr unsigned mask = 1u << 1;        ///< the optional mask, true = forbidden
inline constexpr unsigned qkv = 1u << 2;         ///< Q, K, V as matrices (T_q x d_k, T_v x d_k, T_v x d_v)
inline constexpr unsigned tiles = 1u << 3;       ///< tile_q, tile_k
inline constexpr unsigned upstream = 1u << 4;    ///< dO, T_q x d_v
inline constexpr unsigned projections = 1u << 5; ///< X, the heads' W_Q, W_K, W_V, and W_O
inline constexpr unsigned mask_shape = 1u << 6;  ///< Case::mask_shape, the mask to build
inline constexpr unsigned batched = 1u << 7;     ///< Q, K, V stacked 4-D tensors and Case::batched
}  // namespace input

/// What an operation's answer holds (flags of OperationSpec::answers).
namespace answer {
inline constexpr unsigned outputs = 1u << 0;    ///< O
inline constexpr unsigned weights = 1u << 1;    ///< A (softmax rows, or attention's weights when the subject gives them)
inline constexpr unsigned logsumexp = 1u << 2;  ///< each query row's logsumexp (the tiled forward)
inline constexpr unsigned mask = 1u << 3;       ///< a built mask
inline constexpr unsigned gradients = 1u << 4;  ///< dQ, dK, dV
}  // namespace answer

/// One operation as data: its stable name (the protocol's "op", check's
/// --op, the registry's "check_serves"), what a Case carries for it, what
/// its answer holds, whether check takes it and whether its failures are
/// diagnosed. detail::kOperationSpecs has one row per
/// enumerator, in the enumerator's order.
struct OperationSpec {
  Operation op;
  std::string_view name;
  unsigned inputs;   ///< input:: flags
  unsigned answers;  ///< answer:: flags
  /// Whether `attnlab check --op NAME` takes it (the mask builders are
  /// graded as an exercise's functions, never checked as a kernel).
  bool checked_as_kernel;
  /// Whether the grader hands a failure's counterexample of it to the
  /// diagnosis (attn::mis::diagnose, misconceptions/); false: the failure
  /// gets a plain verdict, no misconception named (misconceptions/ models
  /// no mistake of batched_attention).
  bool diagnosed;
};

namespace detail {

// One row per enumerator, in the enumerator's order (checked below).
inline constexpr OperationSpec kOperationSpecs[] = {
    {Operation::softmax_rows, "softmax_rows", input::logits, answer::weights, true, true},
    {Operation::masked_softmax, "masked_softmax", input::logits | input::mask, answer::weights, true, true},
    {Operation::attention, "attention", input::qkv | input::mask, answer::outputs | answer::weights, true,
     true},
    {Operation::attention_tiled, "attention_tiled", input::qkv | input::mask | input::tiles,
     answer::outputs | answer::logsumexp, true, true},
    {Operation::multi_head_attention, "multi_head_attention", input::projections | input::mask,
     answer::outputs, true, true},
    {Operation::causal_mask, "causal_mask", input::mask_shape, answer::mask, false, true},
    {Operation::padding_mask, "padding_mask", input::mask_shape, answer::mask, false, true},
    {Operation::batched_attention, "batched_attention", input::batched | input::mask, answer::outputs, true,
     false},
    {Operation::attention_backward, "attention_backward",
     input::qkv | input::mask | input::tiles | input::upstream, answer::gradients, true, true},
};

constexpr bool specs_in_enumerator_order() {
  for (std::size_t i = 0; i < std::size(kOperationSpecs); ++i)
    if (static_cast<std::size_t>(kOperationSpecs[i].op) != i) return false;
  return true;
}
static_assert(specs_in_enumerator_order(), "kOperationSpecs: one row per Operation, in the enumerator's order");
static_assert(static_cast<std::size_t>(Operation::attention_backward) + 1 == std::size(kOperationSpecs),
              "kOperationSpecs: a row for every Operation (the last enumerator's is the last row)");

}  // namespace detail

/// Every operation's spec, in the enumerator's order.
inline constexpr std::span<const OperationSpec> operation_specs() { return detail::kOperationSpecs; }

/// The spec of `op` (an Operation's value is its row: static_assert above).
inline constexpr const OperationSpec& operation_spec(Operation op) {
  return detail::kOperationSpecs[static_cast<std::size_t>(op)];
}

/// The operation named `name` (operation_spec(op).name), if any.
std::optional<Operation> operation_named(std::string_view name);

/// Stable text name of an operation ("attention"), also used by the protocol.
const char* operation_name(Operation op);

/// True for the operations that take Q, K, V as matrices (rather than logits
/// S, X and projections, or stacked 4-D tensors).
inline constexpr bool takes_qkv(Operation op) { return (operation_spec(op).inputs & input::qkv) != 0; }

/// True for the operations that take logits S (the softmax operations).
inline constexpr bool takes_logits(Operation op) { return (operation_spec(op).inputs & input::logits) != 0; }

/// True for the operations that build a mask (their answer is Outcome::mask).
inline constexpr bool builds_mask(Operation op) { return (operation_spec(op).answers & answer::mask) != 0; }

/// True for the operations whose answer includes the outputs O.
inline constexpr bool returns_outputs(Operation op) { return (operation_spec(op).answers & answer::outputs) != 0; }

}  // namespace attn::prop
