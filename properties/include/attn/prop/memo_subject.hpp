#pragma once
// MemoSubject: a Subject asked each distinct case once. The properties of a
// run draw their generated cases from the same seed, and the diagnosis
// batteries of a report repeat their standard cases, so a submission graded
// on 13 properties is asked the same case many times over (a public NumPy
// kernel that fails 11 properties: 24778 requests, 5603 of them distinct).
// Properties assume a kernel's answer is a function of its inputs (the text's
// attention is one; every property judges one answer per case), so an
// answer given before is returned again instead of asking the submission.
//
// Remembered: results and refusals, keyed by every input the subject reads
// (case_key). Not remembered: faults (a crash, a timeout, a malformed reply:
// the next ask may be answered, and a fault is charged as it happens), and
// nothing once the memo holds kMemoSubjectBytes of keys and matrices (later
// cases are then asked as they come).

#include <cstddef>
#include <string>
#include <unordered_map>

#include "attn/prop/case.hpp"
#include "attn/prop/outcome.hpp"
#include "attn/prop/subject.hpp"

namespace attn::prop {

/// Every input of a case that a Subject reads, bit for bit, as bytes: the
/// operation, Q, K, V, S, dO (shape and each double's 8 bytes, so -0.0 and
/// 0.0 and two NaN payloads differ), the mask, the tiles, X, the heads'
/// projections, W_O, the mask shape to build, and the batched operation's
/// shapes, mask dimensions, scale, causal flag and alignment. Not the knobs
/// (Case::params) or tags, which no subject reads. Two cases with the same
/// key are the same question.
std::string case_key(const Case& c);

/// The memo's size limit: key bytes plus 8 per double and 1 per mask entry held.
inline constexpr std::size_t kMemoSubjectBytes = std::size_t{64} << 20;

class MemoSubject : public Subject {
 public:
  /// Wraps `inner`, which must outlive this object.
  explicit MemoSubject(Subject& inner) : inner_(inner) {}

  std::string name() const override { return inner_.name(); }
  Precision precision() const override { return inner_.precision(); }
  bool supports(Operation op) const override { return inner_.supports(op); }
  bool returns_weights() const override { return inner_.returns_weights(); }
  /// The remembered answer to a case asked before, else inner's (remembered
  /// unless a fault or the memo is full). Does not throw but for std::bad_alloc.
  Outcome run(const Case& c) override;

  /// Cases passed to the inner subject, and cases answered from the memo.
  std::size_t asked() const { return asked_; }
  std::size_t reused() const { return reused_; }

 private:
  Subject& inner_;
  std::unordered_map<std::string, Outcome> memo_;
  std::size_t bytes_ = 0;
  std::size_t asked_ = 0;
  std::size_t reused_ = 0;
};

}  // namespace attn::prop
