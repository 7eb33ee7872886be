#pragma once
// The diagnosis of attention_backward (private): diagnose() hands a
// backward counterexample here. The battery is chosen as the forward's
// (greedy, by model pairs separated; at most kMaxBatteryCases cases and
// kMaxBatteryEntries entries: Q, K, V, dO, the mask and the answer's dQ,
// dK, dV), and a key is named when one family's member reproduces dQ, dK
// and dV on every case while the definition does not (README.md, "The
// backward pass").

#include <string>
#include <vector>

#include "attn/mis/diagnose.hpp"

namespace attn::mis::detail {

/// The definition first, then every member of the backward families (a
/// narrow accumulation only when narrower than the declared one).
std::vector<Model> backward_models(const Precision& declared);

/// The backward battery for a declared precision (counterexample first
/// when it has no fully forbidden row and uses at most a quarter of the
/// entries; may be null).
Battery backward_battery(const Precision& declared, const Case* counterexample, const Options& options);

/// diagnose() for an attention_backward counterexample. Never throws for a
/// misbehaving subject.
Diagnosis diagnose_backward(attn::prop::Subject& subject, const Case& counterexample,
                            const std::string& failed_property, const Options& options);

}  // namespace attn::mis::detail
