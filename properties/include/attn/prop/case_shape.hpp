#pragma once
// A case's sizes as one line, as a counterexample's report names them
// (print_verdict) and as `attnlab check --results-json` gives them.

#include <string>

#include "attn/prop/case.hpp"

namespace attn::prop {

/// The case's sizes: "T_q=2, T_v=3, d_k=4, d_v=1" (Q, K, V), "T_q=2, T_v=3"
/// (S, a mask to build), "T=.., d_model=.., h=.., d_k=.., d_v=.., d_out=.."
/// (multi-head), "N=.., H=.., H_kv=.., T_q=.., T_v=.., d_k=.., d_v=.."
/// (batched). Does not throw beyond std::bad_alloc.
std::string shape_line(const Case& c);

}  // namespace attn::prop
