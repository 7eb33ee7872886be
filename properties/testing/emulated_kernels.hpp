#pragma once
// Software-emulated low-precision attention kernels, for the two-sided
// evidence of the storage/accumulation model (reference/TOLERANCE.md,
// "Storage and accumulation types"). Test support only: not installed.
//
// Every kernel stores in a 16-bit type (float16, bfloat16: a format whose
// default accumulation type is wider, attn::ref::FormatInfo) and declares
// that accumulation, float32 (Precision::of(storage)). Arithmetic is
// float32; a value is put into the storage type with attn::ref::
// round_to_format (round to nearest even on the float32 bits).
// Inputs are checked, and refused, by the library's float path (attn::
// attention<float> and friends: same typed errors, same logit rule); the
// values are computed here.

#include <string>

#include "attn/prop/subject.hpp"

namespace attn::prop::testing {

/// What the emulated kernel does wrong, if anything.
enum class EmulatedFlaw {
  /// None: FlashAttention's scheme. Logits S = (Q K^T) / sqrt(d_k), the row
  /// maximum, exp(S - m), the row sum l, P V and logsumexp in float32; the
  /// weights P = exp(S - m) rounded to storage before P V; A = P / l and
  /// O = (P V) / l rounded to storage.
  none,
  /// Every operation (products, sums, exp, division) rounded to the storage
  /// type, while declaring float32 accumulation.
  accumulates_in_storage,
  /// The row maximum is not subtracted before exp (exp(S) / sum exp(S)).
  no_max_shift,
};

/// "correct", "accumulates in storage", "no max shift".
const char* flaw_name(EmulatedFlaw f);

/// An emulated kernel as a Subject: attention (O and A), attention_tiled
/// (online softmax over key tiles of c.tile_k keys: O and logsumexp),
/// masked_softmax and softmax_rows (A). `storage` must be float16 or
/// bfloat16, a format accumulated in a wider one (std::invalid_argument
/// otherwise).
class EmulatedSubject : public Subject {
 public:
  explicit EmulatedSubject(NumberFormat storage, EmulatedFlaw flaw = EmulatedFlaw::none);
  std::string name() const override;
  Precision precision() const override { return Precision::of(storage_); }
  bool supports(Operation op) const override;
  Outcome run(const Case& c) override;

 private:
  NumberFormat storage_;
  EmulatedFlaw flaw_;
};

}  // namespace attn::prop::testing
