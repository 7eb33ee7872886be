#pragma once
// What a Subject answered for a Case (docs/ARCHITECTURE.md, "Data flow").

#include <string>

#include "attn/prop/case.hpp"

namespace attn::prop {

struct Outcome {
  enum class Kind {
    result,   ///< the subject returned values (O and/or A)
    refusal,  ///< the subject raised an error (error_type, message)
    fault,    ///< crash, timeout, malformed reply, protocol error (message)
  };
  Kind kind = Kind::fault;
  DMatrix O;  ///< T_q x d_v, for Operation::attention
  DMatrix A;  ///< T_q x T_v weights (not for attention_tiled, which never forms A)
  // A result keeps O and A as answered, of any shape (a wrong shape is
  // score_shape's to charge: judge_parts); a fault leaves them empty.
  DMatrix logsumexp;  ///< T_q x 1, log sum_j exp(S_ij) over allowed j (attention_tiled)
  /// The gradients (attention_backward): dQ T_q x d_k, dK T_v x d_k, dV T_v x d_v.
  DMatrix dQ, dK, dV;
  /// The mask built (causal_mask, padding_mask), T_q x T_v, true = forbidden.
  Mask mask;
  /// For refusals: the error's type as the subject named it
  /// ("FullyMaskedRowError", "ValueError", "std::invalid_argument"...).
  std::string error_type;
  /// For refusals and faults: the message, as given.
  std::string message;

  static Outcome make_result(DMatrix O, DMatrix A);
  static Outcome make_refusal(std::string error_type, std::string message);
  static Outcome make_fault(std::string message);
  /// A result of attention_backward: the three gradients.
  static Outcome make_gradients(DMatrix dQ, DMatrix dK, DMatrix dV);
};

const char* kind_name(Outcome::Kind k);

}  // namespace attn::prop
