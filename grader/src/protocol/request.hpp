#pragma once
// Case -> request line (grader/PROTOCOL.md, "Requests").

#include <cstdint>
#include <string>

#include "attn/prop/case.hpp"

namespace attn::grader {

/// The request line (without the final '\n') asking a submission to answer c:
///   {"v":1,"id":id,"op":"attention","Q":..,"K":..,"V":..,"mask":..|null,"shapes":{..}}
/// for Operation::attention, and {"v":1,"id":id,"op":"softmax_rows","S":..}
/// or {.."op":"masked_softmax","S":..,"mask":..} for the softmax operations;
/// attention_tiled also carries "tile_q" and "tile_k"; batched_attention
/// sends Q, K, V as 4-D nested arrays, the mask (2-D or 4-D) or null,
/// "scale" (a number or null), "causal" and "alignment", with "shapes"
/// giving every tensor's dimensions.
/// "shapes" gives [rows, cols] of every matrix sent, so a receiver can shape
/// a matrix with zero rows. Non-finite entries travel as strings (json_double.hpp).
/// Does not throw for any Case (inconsistent shapes are sent as they are: the
/// refusal properties need them).
std::string request_line(const attn::prop::Case& c, std::int64_t id);

}  // namespace attn::grader
