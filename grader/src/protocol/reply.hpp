#pragma once
// Reply line -> Outcome (grader/PROTOCOL.md, "Replies").

#include <cstdint>
#include <string_view>

#include "attn/prop/case.hpp"
#include "attn/prop/outcome.hpp"

namespace attn::grader {

/// Turns the submission's reply to request `id` (asking for case c) into an Outcome:
/// - {"ok":true,"O":..,"A":..} -> result. For Operation::attention both O
///   (T_q x d_v, T_q = Q.rows(), d_v = V.cols()) and A (T_q x T_v, T_v = K.rows())
///   are required; for Operation::attention_tiled O and "logsumexp" (T_q numbers);
///   for the softmax operations only A (the shape of S); for
///   Operation::batched_attention O as 4-D nested arrays (N, H, T_q, d_v),
///   returned stacked (attn::prop::Case::Batched). A 2-D matrix (or a
///   logsumexp) of another shape is kept as answered, still a result: the
///   properties charge the shape once (attn::prop::detail::judge_parts).
/// - {"ok":false,"error":{"type":..,"message":..}} -> refusal (the submission raised).
/// - {"ok":false,"fault":".."} -> fault (the harness found the answer unusable).
/// - anything else -> fault whose message says what is wrong: not JSON, not an
///   object, wrong "v", wrong "id", a missing member, a matrix that is not
///   rectangular or has a non-number entry, a mask or a 4-D O of the wrong
///   shape.
/// Never throws. When `paired` is given it is set to whether the line is a
/// JSON object with the right "v" and "id", i.e. the reply to this request
/// (then a fault is about the answer, and the channel is still in step).
/// `weights` false (the hello's "weights": false): an attention reply
/// carries O only, and A is left empty.
attn::prop::Outcome parse_reply(std::string_view line, std::int64_t id,
                                const attn::prop::Case& c, bool* paired = nullptr,
                                bool weights = true);

}  // namespace attn::grader
